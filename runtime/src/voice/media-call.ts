import type { AgentRecord } from '../store/repositories/agents.js';
import type { Store } from '../store/store.js';
import { CallLedger, TurnTimer } from './call-ledger.js';
import type { CallSession } from './call-session.js';
import type { CallDialogue, DialogueAction } from './dialogue.js';
import type { VoiceService } from './voice-service.js';

/**
 * What every media connection shares, whatever its protocol: finding the session named by the
 * provider's start message, running the dialogue's actions in order, ending runaway calls politely.
 */
export abstract class MediaCall {
  protected session: CallSession | undefined;
  protected dialogue: CallDialogue | undefined;
  /** The call's latency ledger: stamps at turn boundaries, in memory, written when the call ends. */
  protected readonly ledger = new CallLedger();
  /** The turn whose reply was said last (what a barge-in interrupts). */
  protected speaking: TurnTimer = this.ledger.greeting;
  #queue: Promise<unknown> = Promise.resolve();
  #maxTimer: NodeJS.Timeout | undefined;

  constructor(
    protected readonly voice: VoiceService,
    protected readonly store: Store,
    protected readonly agentId: string,
    /** Closes the media connection. */
    protected readonly hangUp: () => void,
  ) {}

  /** Speaks text to the caller (protocol-specific); `timer` takes the reply's speech stamps. */
  protected abstract say(text: string, timer?: TurnTimer): Promise<void>;

  /** Ends the call after what was said has been heard (protocol-specific). */
  protected abstract finish(): Promise<void>;

  /** The call is to be recorded, from now (protocol-specific: whoever holds the audio records it). */
  protected abstract record(session: CallSession): void;

  /** Binds the connection to its session; false when no live session matches. */
  protected async begin(sessionId: string | undefined, callSid: string | undefined): Promise<boolean> {
    const session = sessionId ? await this.voice.find(sessionId) : undefined;
    if (!session || session.agentId !== this.agentId) return false;
    const agent: AgentRecord | undefined = await this.store.agents.get(this.agentId);
    if (!agent) return false;
    this.voice.hold(session);
    if (callSid && !session.callSid) this.voice.sessions.bindCall(session, callSid);
    this.session = session;
    // Looked up while the call is bound; said before anything else.
    const announcing = this.voice.recordingAnnouncement(session);
    if (session.record) this.record(session);
    this.voice.connected(session);
    this.dialogue = await this.voice.dialogue(session, agent);
    const remaining = this.voice.maxCallMs - (Date.now() - session.startedAt);
    this.#maxTimer = setTimeout(() => this.detached(this.serially(async () => this.perform(await this.dialogue!.close('max-duration')))), Math.max(1000, remaining));
    this.#maxTimer.unref();
    const announcement = await announcing;
    if (announcement) this.ledger.recordingAnnouncement = announcement;
    await this.say(this.dialogue.opening(announcement), this.ledger.greeting);
    return true;
  }

  /** The media stream started: the greeting's clock starts. */
  protected mediaStarted(): void {
    this.ledger.greeting.mark('callerStopped');
  }

  /** A new turn, started now: the caller stopped speaking. */
  protected static turnStarted(): TurnTimer {
    const timer = new TurnTimer();
    timer.mark('callerStopped');
    return timer;
  }

  /** The caller said something (a relay prompt, or a transcribed utterance); `timer` started when the caller stopped. */
  protected heard(text: string, timer: TurnTimer = MediaCall.turnStarted()): Promise<void> {
    return this.serially(async () => {
      if (!this.dialogue || !this.session) return;
      const line = this.session.transcript.length;
      const reply = this.dialogue.hear(text, timer);
      // The dialogue records the caller's words before it waits on anything: a line means it took the turn.
      const took = this.session.transcript[line]?.role === 'caller';
      if (took) this.ledger.add(timer, line);
      const actions = await reply;
      await this.perform(actions, timer).catch((err: unknown) => {
        timer.unanswered ??= 'failed';
        throw err;
      });
      if (!took) return;
      // Said nothing back: the agent had nothing to say, or the call ended before the reply's first frame.
      if (timer.stamps.firstFrameSent === undefined) timer.unanswered ??= actions.some((a) => a.kind === 'say') ? 'call-ended' : 'no-reply';
      this.voice.turnMeasured(this.session, timer);
    });
  }

  /** An utterance ended that speech-to-text gave no words for: a turn nobody was asked to answer, in the ledger with its reason. */
  protected unheard(timer: TurnTimer): Promise<void> {
    return this.serially(async () => {
      if (!this.session || this.dialogue?.finished) return;
      timer.unanswered = 'not-transcribed';
      this.ledger.add(timer, this.session.transcript.length);
    });
  }

  /** The caller spoke over the reply being said; `stopMs` is how long it took to stop (null: the provider stopped it). */
  protected bargedIn(at: number, stopMs: number | null): void {
    this.speaking.bargeIns.push({ at, stopMs });
  }

  /** The media connection closed. */
  closed(): void {
    clearTimeout(this.#maxTimer);
    if (this.session && !this.session.ended) void this.dialogue?.close('hangup');
    if (this.session) {
      this.voice.conversationEnded(this.session, this.ledger);
      this.voice.released(this.session);
    }
  }

  /**
   * Work the call started itself, which no provider message waits on (an utterance our endpointing
   * ended, the time limit): a failure, say text-to-speech timing out, is logged, never left unhandled
   * (an unhandled rejection ends the process, and every call it holds).
   */
  protected detached(work: Promise<void>): void {
    work.catch((err: unknown) => this.voice.callFailed(this.session, err));
  }

  protected serially(work: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  protected async perform(actions: readonly DialogueAction[], timer?: TurnTimer): Promise<void> {
    for (const action of actions) {
      if (action.kind === 'say') {
        if (timer) this.speaking = timer;
        await this.say(action.text, timer);
      } else if (action.kind === 'hangup') await this.finish();
      else if (action.kind === 'transfer' && this.session?.callSid) {
        await this.voice.telephonyDriver().telephony.updateCall(this.session.callSid, [{ kind: 'dial', number: action.to, callerId: this.session.direction === 'inbound' ? this.session.to : this.session.from }]);
      }
    }
  }
}
