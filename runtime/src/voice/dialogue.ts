import type { AgentRecord } from '../store/repositories/agents.js';
import type { AgentTurns } from './agent-turns.js';
import type { CallSession } from './call-session.js';
import type { TurnTimer } from './call-ledger.js';

/** What the media layer should do next. */
export type DialogueAction =
  | { readonly kind: 'say'; readonly text: string }
  | { readonly kind: 'transfer'; readonly to: string }
  | { readonly kind: 'hangup' };

/** What the dialogue reports when a call ends with a message for the agent. */
export type MessageTaken = (session: CallSession, message: string) => Promise<void>;

const YES = /\b(yes|yeah|yep|sure|ok|okay|of course|certainly|please do|put (?:me|him|her|them) through|go ahead)\b/i;
const NO = /\b(no|nope|not now|busy|can't|cannot|later|decline)\b/i;

type Stage = 'talk' | 'take-message' | 'ask-consent' | 'done';

/**
 * The conversation of one call, independent of how audio or text reaches it: live AI turns, the
 * answering machine of an inbound call (greet, take a message, say goodbye; the message becomes a
 * voicemail), an outbound call with no one to answer its turns (say the greeting, take the callee's
 * reply for the agent, say goodbye), and the secretary flow (say who is calling and why, ask whether
 * they take the call, bridge or take a message).
 */
export class CallDialogue {
  #stage: Stage;

  constructor(
    private readonly session: CallSession,
    private readonly agent: AgentRecord,
    private readonly turns: AgentTurns,
    private readonly messageTaken: MessageTaken,
    private readonly bridgeAvailable: boolean,
    /** Whether anyone could answer the agent's turns when the call connected. */
    reachable: boolean,
  ) {
    this.#stage = session.purpose.kind === 'secretary' ? 'ask-consent' : reachable ? 'talk' : 'take-message';
  }

  /** The first words on the line (recorded in the transcript), after `announcement` when the call must say one first. */
  opening(announcement?: string): string {
    const text = announcement ? `${announcement} ${this.#openingText()}` : this.#openingText();
    this.#record('agent', text);
    return text;
  }

  #openingText(): string {
    const { purpose } = this.session;
    if (purpose.kind === 'secretary') {
      const who = purpose.requesterName ?? 'a caller';
      const about = purpose.message ? ` about ${purpose.message}` : '';
      return `Hello${purpose.targetName ? ` ${purpose.targetName}` : ''}, I'm an assistant calling on behalf of ${who}${about}. Would you like to take the call?`;
    }
    if (this.#stage === 'take-message') {
      // The answering machine is for callers nobody can answer; a call the agent placed says what it
      // was placed to say, and whatever the callee answers is passed on to the agent.
      if (this.session.direction === 'outbound') {
        return this.session.greeting ?? `Hello, this is ${this.agent.displayName}. Is there anything you would like me to pass on?`;
      }
      return `Hello, you've reached ${this.agent.displayName}. No one can take your call right now; please leave a message and I'll pass it on.`;
    }
    return this.session.greeting ?? `Hello, this is ${this.agent.displayName}. How can I help?`;
  }

  /** True once the dialogue has nothing more to say. */
  get finished(): boolean {
    return this.#stage === 'done';
  }

  /** The caller said something; returns what to do. `timer` takes the turn's agent stamps. */
  async hear(text: string, timer?: TurnTimer): Promise<DialogueAction[]> {
    const words = text.trim();
    if (!words || this.#stage === 'done') return [];
    this.#record('caller', words);
    switch (this.#stage) {
      case 'take-message':
        return this.#takeMessage(words);
      case 'ask-consent':
        return this.#consent(words);
      case 'talk':
        return this.#talk(timer);
      default:
        return [];
    }
  }

  /** Ends the dialogue (the caller hung up, or the call ran too long); a half-left message is still passed on. */
  async close(reason: 'hangup' | 'max-duration'): Promise<DialogueAction[]> {
    if (this.#stage === 'done') return [];
    this.#stage = 'done';
    if (reason === 'max-duration') return [this.#say('We have reached the time limit for this call. Thank you for calling, goodbye.'), { kind: 'hangup' }];
    return [];
  }

  async #talk(timer: TurnTimer | undefined): Promise<DialogueAction[]> {
    const reply = await this.turns.reply(this.session, this.agent, timer);
    if (!reply) {
      this.#stage = 'take-message';
      return [this.#say("I'm sorry, I can't answer right now. Please leave a message and I'll pass it on.")];
    }
    const actions: DialogueAction[] = reply.text ? [this.#say(reply.text)] : [];
    if (reply.transferTo) {
      this.#stage = 'done';
      return [...actions, { kind: 'transfer', to: reply.transferTo }];
    }
    if (reply.end) {
      this.#stage = 'done';
      return [...actions, { kind: 'hangup' }];
    }
    return actions;
  }

  async #takeMessage(message: string): Promise<DialogueAction[]> {
    this.#stage = 'done';
    await this.messageTaken(this.session, message);
    const thanks = this.session.direction === 'outbound' && this.session.purpose.kind === 'conversation' ? "Thank you, I'll pass that on. Goodbye." : 'Thank you, I will pass your message on. Goodbye.';
    return [this.#say(thanks), { kind: 'hangup' }];
  }

  #consent(answer: string): DialogueAction[] {
    const purpose = this.session.purpose;
    if (purpose.kind !== 'secretary') return [];
    if (YES.test(answer) && !NO.test(answer)) {
      if (this.bridgeAvailable) {
        this.#stage = 'done';
        return [this.#say('Thank you, connecting you now.'), { kind: 'transfer', to: purpose.requesterPhone }];
      }
      this.#stage = 'take-message';
      return [this.#say("Thank you. I can't connect you right now; may I take a message instead?")];
    }
    this.#stage = 'take-message';
    return [this.#say('I understand. May I take a message?')];
  }

  #say(text: string): DialogueAction {
    this.#record('agent', text);
    return { kind: 'say', text };
  }

  #record(role: 'caller' | 'agent', text: string): void {
    this.session.transcript.push({ role, text, at: new Date().toISOString() });
  }
}
