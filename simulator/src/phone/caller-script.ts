import { performance } from 'node:perf_hooks';
import type { Conversation } from './conversation.js';
import type { PhoneScript, PhoneStep } from './phone-types.js';
import type { VoiceLeg } from './voice-leg.js';

/** How long the caller waits for a greeting before speaking first. */
const GREETING_WAIT_MS = 2000;
const DEFAULT_REPLY_TIMEOUT_MS = 15_000;
const DEFAULT_QUIET_MS = 500;
const DEFAULT_BARGE_IN_AFTER_MS = 300;

/** A string step is an utterance. */
export function normaliseStep(step: PhoneStep | string): PhoneStep {
  return typeof step === 'string' ? { kind: 'say', text: step } : step;
}

/** The steps of a call's script, consumed across its connections; more can be added while it runs. */
export class ScriptSteps {
  readonly #steps: PhoneStep[];
  #at = 0;
  #wake: (() => void) | undefined;

  constructor(steps: ReadonlyArray<PhoneStep | string> = []) {
    this.#steps = steps.map(normaliseStep);
  }

  next(): PhoneStep | undefined {
    return this.#at < this.#steps.length ? this.#steps[this.#at++] : undefined;
  }

  add(steps: ReadonlyArray<PhoneStep | string>): void {
    this.#steps.push(...steps.map(normaliseStep));
    this.#wakeUp();
  }

  /** Resolves when steps are added (or `release` is called). */
  more(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Texts of the utterances still to come. */
  upcomingUtterances(): string[] {
    return this.#steps.slice(this.#at).flatMap((s) => (s.kind === 'say' ? [s.text] : []));
  }

  /** Releases a `more()` wait (the connection closed). */
  release(): void {
    this.#wakeUp();
  }
}

/** What the script runner needs besides the leg. */
export interface ScriptRun {
  leg: VoiceLeg;
  conversation: Conversation;
  steps: ScriptSteps;
  script: PhoneScript;
  /** Called before an utterance is spoken (speech-to-text registries). */
  beforeUtterance(text: string, language: string): void;
}

/**
 * Plays the caller's part on a connected leg: waits for the agent's turn, speaks, keys digits,
 * barges in when told to. Resolves `hangup` when the caller is done (the steps ran out, or a
 * `hangup` step), `closed` when the socket closed first.
 */
export async function runCallerScript(run: ScriptRun): Promise<'hangup' | 'closed'> {
  const { leg, conversation, steps, script } = run;
  const replyTimeoutMs = script.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
  const quietMs = script.quietMs ?? DEFAULT_QUIET_MS;
  let closed = false;
  void leg.closed.then(() => {
    closed = true;
    steps.release();
  });

  /** Waits until the agent has taken its turn: answered the last utterance (or greeted) and gone quiet. */
  const agentTurn = async (): Promise<void> => {
    const turn = conversation.current;
    if (turn.index === 0) {
      await conversation.waitFor(
        (now) => (conversation.firstReplyAt(0) !== undefined || now - conversation.connectedAt >= GREETING_WAIT_MS) && leg.agentQuiet(now, quietMs),
        replyTimeoutMs,
      );
      return;
    }
    const answered = await conversation.waitFor((now) => conversation.firstReplyAt(turn.index) !== undefined && leg.agentQuiet(now, quietMs), replyTimeoutMs);
    if (!answered && !closed) turn.timedOut = true;
  };
  const sleep = (ms: number) => {
    const until = performance.now() + ms;
    return conversation.waitFor((now) => now >= until, ms + 1000);
  };

  let awaitingReply = false;
  while (!closed) {
    const step = steps.next();
    if (!step) {
      if (script.stayOnLine) {
        await steps.more();
        continue;
      }
      if (awaitingReply) await agentTurn();
      return closed ? 'closed' : 'hangup';
    }
    switch (step.kind) {
      case 'say': {
        const language = step.language ?? script.language ?? 'en-US';
        if (step.bargeIn) {
          const turn = conversation.current;
          const afterMs = step.afterMs ?? DEFAULT_BARGE_IN_AFTER_MS;
          const started = await conversation.waitFor((now) => {
            const first = conversation.firstReplyAt(turn.index);
            return first !== undefined && (now - first >= afterMs || !leg.agentSpeaking(now));
          }, replyTimeoutMs);
          if (!started && !closed) turn.timedOut = true;
        } else if (awaitingReply || conversation.current.index === 0) {
          await agentTurn();
        } else {
          await conversation.waitFor((now) => leg.agentQuiet(now, quietMs), replyTimeoutMs);
        }
        if (closed) break;
        run.beforeUtterance(step.text, language);
        await leg.speak(step.text, language, step.bargeIn === true);
        awaitingReply = true;
        break;
      }
      case 'dtmf':
        await leg.sendDigits(step.digits);
        awaitingReply = false;
        break;
      case 'pause':
        await sleep(step.ms);
        break;
      case 'listen':
        if (step.ms !== undefined) await sleep(step.ms);
        else await agentTurn();
        awaitingReply = false;
        break;
      case 'hangup':
        return closed ? 'closed' : 'hangup';
    }
  }
  return 'closed';
}
