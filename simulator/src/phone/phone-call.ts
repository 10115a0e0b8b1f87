import { callDurationSeconds, callPrice, callRequestParams, requestedCallEvents, sendCallWebhook } from '../twilio/calls-webhooks.js';
import { postTelnyxCallEvent, telnyxEventTypeOf } from '../telnyx/telnyx-call-events.js';
import { completeCallRecordings } from '../twilio/recordings.js';
import { rfc2822 } from '../twilio/twilio-format.js';
import type { SimCall, SimCallStatus } from '../types.js';
import { TwimlRunner, type TwimlSource } from './call-runner.js';
import { ScriptSteps } from './caller-script.js';
import { Conversation } from './conversation.js';
import { rewriteUrl, type PhoneContext } from './phone-context.js';
import type { CallEnd, CallRecording, PhoneCall, PhoneScript, PhoneStep, StatusEvent, VoiceMode } from './phone-types.js';
import { recordError } from './voice-leg.js';

const DEFAULT_MAX_DURATION_MS = 120_000;

function emptyRecording(call: SimCall): CallRecording {
  return {
    callSid: call.sid,
    accountSid: call.accountSid,
    direction: call.direction,
    from: call.from,
    to: call.to,
    status: call.status,
    mode: null,
    createdAt: call.createdAt,
    durationSeconds: 0,
    price: null,
    twiml: [],
    heard: [],
    connections: [],
    turns: [],
    marks: [],
    clears: [],
    frames: { sent: 0, late: 0, maxJitterMs: 0, meanJitterMs: 0, received: 0, receivedMs: 0, playedMs: 0, clearedMs: 0, speechMs: 0 },
    statusEvents: [],
    errors: [],
  };
}

/**
 * A call on the simulated phone: its Twilio call resource, status transitions and signed status
 * callbacks, the TwiML runner, and the script of the person on the line.
 */
export class LivePhoneCall implements PhoneCall {
  readonly sim: SimCall;
  readonly recording: CallRecording;
  readonly done: Promise<CallRecording>;
  readonly script: PhoneScript;
  readonly steps: ScriptSteps;
  readonly conversation: Conversation;
  readonly expectMode: VoiceMode | undefined;
  readonly #ctx: PhoneContext;
  readonly #runner: TwimlRunner;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #events: Set<string>;
  #resolveDone!: (recording: CallRecording) => void;
  #callbacks: Promise<void> = Promise.resolve();
  #callbackSeq = 0;
  #ended = false;
  #onEnd: (() => void) | undefined;

  constructor(ctx: PhoneContext, sim: SimCall, script: PhoneScript, expectMode?: VoiceMode) {
    this.#ctx = ctx;
    this.sim = sim;
    this.script = script;
    this.expectMode = expectMode;
    this.recording = emptyRecording(sim);
    this.conversation = new Conversation(this.recording, ctx.settings.recordAudioMs);
    this.steps = new ScriptSteps(script.steps);
    this.#events = requestedCallEvents(sim);
    this.#runner = new TwimlRunner(this, ctx);
    this.done = new Promise((resolve) => (this.#resolveDone = resolve));
  }

  get callSid(): string {
    return this.sim.sid;
  }

  get direction(): 'inbound' | 'outbound-api' {
    return this.sim.direction;
  }

  get status(): SimCallStatus {
    return this.sim.status;
  }

  get ended(): boolean {
    return this.#ended;
  }

  get answered(): boolean {
    return this.sim.startTime !== undefined;
  }

  /** Called once when the call ends (the phone forgets it as live). */
  onEnd(listener: () => void): void {
    this.#onEnd = listener;
  }

  perform(...steps: Array<PhoneStep | string>): void {
    this.steps.add(steps);
  }

  hangup(): void {
    this.end(this.answered ? 'completed' : 'canceled', 'caller');
  }

  error(message: string): void {
    recordError(this.recording, message);
  }

  /** Runs `task` after `ms` unless the call has ended by then. */
  later(ms: number, task: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (!this.#ended) task();
    }, ms);
    this.#timers.add(timer);
  }

  /** Moves the call to `status` and posts the `event` callback when one was asked for. */
  setStatus(status: SimCallStatus, event?: string, callStatus: string = status, extra: Record<string, string> = {}): void {
    const now = new Date();
    this.sim.status = status;
    this.sim.updatedAt = now;
    this.recording.status = status;
    const record: StatusEvent = { status, at: now };
    this.recording.statusEvents.push(record);
    if (event) this.#postStatus(record, event, callStatus, extra);
  }

  /** The callee picks up (outbound) or the TwiML starts running (inbound). */
  answer(source: TwimlSource): void {
    const now = new Date();
    this.sim.startTime = now;
    this.recording.answeredAt = now;
    this.setStatus('in-progress', 'answered');
    this.later(this.script.maxDurationMs ?? DEFAULT_MAX_DURATION_MS, () => this.end('completed', 'timeout'));
    this.#runner.start(source);
  }

  /** The call's TwiML was replaced through the REST API. */
  redirect(source: TwimlSource): void {
    if (!this.#ended && this.answered) this.#runner.redirect(source);
  }

  /**
   * Ends the call: stops the TwiML and the socket, prices it, and posts the final callback;
   * `done` resolves once that callback has been answered. `silent` (reset, close) posts nothing.
   */
  end(status: SimCallStatus, by: CallEnd, silent = false): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#runner.stop(by);
    this.steps.release();
    this.conversation.cancelWaits();
    const sim = this.sim;
    sim.endTime ??= new Date();
    sim.price = callPrice(sim);
    const duration = callDurationSeconds(sim);
    Object.assign(this.recording, { endedBy: by, endedAt: sim.endTime, durationSeconds: duration, price: sim.price });
    const extra = { CallDuration: String(duration), Price: sim.price, PriceUnit: 'USD' };
    if (silent) {
      this.sim.status = status;
      this.recording.status = status;
    } else {
      this.setStatus(status, 'completed', status, extra);
      // Twilio finishes a call's recordings once it has ended; their callbacks follow the call's.
      void this.#callbacks.then(() => completeCallRecordings(this.#ctx.state, sim));
    }
    this.#onEnd?.();
    void this.#callbacks.then(() => this.#resolveDone(this.recording));
  }

  #postStatus(record: StatusEvent, event: string, callStatus: string, extra: Record<string, string>): void {
    if (this.sim.telnyx) return this.#postTelnyxEvent(record, event);
    const url = this.sim.statusCallback;
    // A silenced Twilio (`Simulator.silence`) posts no call status callbacks either; a Calls fetch tells.
    if (!url || !this.#events.has(event) || this.#ctx.state.silenced.has('twilio')) return;
    record.event = event;
    record.callbackUrl = url;
    const { state, settings } = this.#ctx;
    const params = {
      ...callRequestParams(this.sim, callStatus),
      CallbackSource: 'call-progress-events',
      SequenceNumber: String(this.#callbackSeq++),
      Timestamp: rfc2822(record.at),
      ...extra,
    };
    const method = this.sim.statusCallbackMethod ?? 'POST';
    // Callbacks are posted one after another, so they arrive in order.
    this.#callbacks = this.#callbacks.then(async () => {
      try {
        const answer = await sendCallWebhook(state.credentials.twilio.authToken, url, method, params, {}, rewriteUrl(settings, url));
        record.callbackStatus = answer.status;
        if (answer.status >= 400) state.logger.warn({ callSid: this.sim.sid, event, status: answer.status }, 'simulator: call status callback refused');
      } catch (err) {
        record.callbackStatus = 0;
        state.logger.warn({ callSid: this.sim.sid, event, err }, 'simulator: call status callback failed');
      }
    });
  }

  /** A Call Control call: its progress as Telnyx's signed JSON events, to the call's webhook URL, in order. */
  #postTelnyxEvent(record: StatusEvent, event: string): void {
    const url = this.sim.statusCallback;
    const eventType = telnyxEventTypeOf(event);
    if (!url || !eventType || this.#ctx.state.silenced.has('telnyx')) return;
    record.event = eventType;
    record.callbackUrl = url;
    const { state, settings } = this.#ctx;
    const status = record.status;
    this.#callbacks = this.#callbacks.then(async () => {
      try {
        const answer = await postTelnyxCallEvent(state, rewriteUrl(settings, url), this.sim, eventType, status);
        record.callbackStatus = answer.status;
        if (answer.status >= 400) state.logger.warn({ callSid: this.sim.sid, eventType, status: answer.status }, 'simulator: telnyx call event refused');
      } catch (err) {
        record.callbackStatus = 0;
        state.logger.warn({ callSid: this.sim.sid, eventType, err }, 'simulator: telnyx call event failed');
      }
    });
  }
}
