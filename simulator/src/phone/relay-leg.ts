import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { MS_PER_CHARACTER, speechDurationMs } from '../audio.js';
import type { ClockListener } from './frame-clock.js';
import { closeSocket, legClosed, recordError, type LegContext, type VoiceLeg } from './voice-leg.js';

const DTMF_GAP_MS = 100;
/** Characters of reply text ConversationRelay speaks per 20 ms tick (the simulator's 60 ms a character). */
const CHARS_PER_TICK = 20 / MS_PER_CHARACTER;

type RelayMessage = { type?: unknown; token?: unknown; last?: unknown; source?: unknown; digits?: unknown; handoffData?: unknown };

/**
 * The phone's side of a ConversationRelay session, standing in for Twilio's speech recognition and
 * synthesis. It sends `setup`, then a `prompt` for each utterance once it has been "spoken" (60 ms
 * a character), `dtmf` for digits, and `interrupt` when the caller talks over a reply that is still
 * playing. Reply `text` tokens are played at the same rate, so barge-in has something to cut.
 */
export class RelayLeg implements VoiceLeg, ClockListener {
  readonly mode = 'relay' as const;
  readonly closed: Promise<void>;
  readonly #ws: WebSocket;
  readonly #ctx: LegContext;
  readonly #greeting: string | undefined;
  #queuedChars = 0;
  #playedChars = 0;
  /** Where the reply now playing started, in characters, and when. */
  #replyFromChar = 0;
  #replyStartedAt = 0;
  #replyText = '';
  /** When the text queued last finished playing. */
  #drainedAt = Number.NEGATIVE_INFINITY;
  #closed = false;

  constructor(ws: WebSocket, ctx: LegContext, greeting: string | undefined) {
    this.#ws = ws;
    this.#ctx = ctx;
    this.#greeting = greeting;
    this.closed = legClosed(ws, ctx, this, () => (this.#closed = true));
    ws.on('message', (data) => this.#onMessage(data));
  }

  start(): void {
    const { call, connection, conversation } = this.#ctx;
    this.#send({
      type: 'setup',
      sessionId: connection.sessionId,
      accountSid: call.accountSid,
      parentCallSid: '',
      callSid: call.sid,
      from: call.from,
      to: call.to,
      forwardedFrom: '',
      callType: 'PSTN',
      callerName: '',
      direction: call.direction,
      callStatus: call.direction === 'inbound' ? 'RINGING' : 'IN-PROGRESS',
      customParameters: connection.parameters,
    });
    const now = performance.now();
    conversation.connectedAt = now;
    // Twilio speaks the welcome greeting itself as the session starts.
    if (this.#greeting) this.#agentText(this.#greeting, true, now);
    this.#ctx.clock.add(this);
  }

  onTick(): void {
    const now = performance.now();
    if (this.#playedChars < this.#queuedChars) {
      this.#playedChars = Math.min(this.#queuedChars, this.#playedChars + CHARS_PER_TICK);
      if (this.#playedChars === this.#queuedChars) this.#drainedAt = now;
    }
    this.#ctx.conversation.poll(now);
  }

  async speak(text: string, language: string, bargeIn: boolean): Promise<void> {
    if (this.#closed) return;
    const { conversation, recording } = this.#ctx;
    const start = performance.now();
    const speaking = this.agentSpeaking(start);
    const turn = conversation.callerStarts({ text, bargeIn });
    if (speaking) {
      // What the caller heard of the reply before talking over it; the rest is not played.
      const heard = [...this.#replyText].slice(0, Math.floor(this.#playedChars - this.#replyFromChar)).join('');
      this.#send({ type: 'interrupt', utteranceUntilInterrupt: heard, durationUntilInterruptMs: Math.round(start - this.#replyStartedAt) });
      this.#queuedChars = this.#playedChars;
      this.#drainedAt = start;
      (recording.turns[turn.index - 1] ?? turn).agent.interrupted = true;
    }
    const until = start + speechDurationMs(text);
    await conversation.waitFor((now) => now >= until, speechDurationMs(text) + 1000);
    if (!this.#closed) this.#send({ type: 'prompt', voicePrompt: text, lang: language, last: true });
    conversation.callerEnds(turn);
  }

  async sendDigits(digits: string): Promise<void> {
    const { conversation } = this.#ctx;
    const turn = conversation.callerStarts({ digits, bargeIn: false });
    for (const digit of digits) {
      if (this.#closed) break;
      this.#send({ type: 'dtmf', digit });
      const until = performance.now() + DTMF_GAP_MS;
      await conversation.waitFor((now) => now >= until, DTMF_GAP_MS * 2);
    }
    conversation.callerEnds(turn);
  }

  agentSpeaking(_now?: number): boolean {
    return this.#playedChars < this.#queuedChars;
  }

  agentQuiet(now: number, quietMs: number): boolean {
    if (this.#playedChars < this.#queuedChars) return false;
    const silent = now - Math.max(this.#ctx.conversation.lastAgentAt, this.#drainedAt);
    // A reply is over at `last: true`; without it, twice the quiet time of silence ends it.
    return silent >= quietMs && (this.#ctx.conversation.current.agent.complete || silent >= 2 * quietMs);
  }

  close(by: 'caller' | 'agent' | 'redirect' | 'error'): void {
    if (this.#closed) return;
    this.#ctx.connection.closedBy ??= by;
    if (this.#ws.readyState === WebSocket.OPEN) closeSocket(this.#ws);
    else this.#ws.terminate();
  }

  #send(message: object): void {
    if (this.#ws.readyState === WebSocket.OPEN) this.#ws.send(JSON.stringify(message));
  }

  #agentText(token: string, last: boolean, now: number): void {
    if (this.#playedChars >= this.#queuedChars) {
      this.#replyFromChar = this.#queuedChars;
      this.#replyStartedAt = now;
      this.#replyText = '';
    }
    this.#replyText += token;
    this.#queuedChars += [...token].length;
    this.#ctx.conversation.agentOutput({ text: token, last }, now);
  }

  #onMessage(data: WebSocket.RawData): void {
    let msg: RelayMessage;
    try {
      msg = JSON.parse(String(data)) as RelayMessage;
    } catch {
      this.#invalid('Invalid message received: not JSON');
      return;
    }
    const now = performance.now();
    const { recording, connection, conversation } = this.#ctx;
    switch (msg.type) {
      case 'text':
        if (typeof msg.token !== 'string') return this.#invalid('Invalid text message: token must be a string');
        this.#agentText(msg.token, msg.last === true, now);
        return;
      case 'play':
        if (typeof msg.source !== 'string') return this.#invalid('Invalid play message: source must be a URL');
        conversation.agentOutput({}, now);
        this.#ctx.play(msg.source);
        return;
      case 'sendDigits':
        if (typeof msg.digits !== 'string') return this.#invalid('Invalid sendDigits message: digits must be a string');
        recording.heard.push({ kind: 'send-digits', digits: msg.digits, at: new Date() });
        return;
      case 'language':
        return;
      case 'end':
        connection.handoffData = typeof msg.handoffData === 'string' ? msg.handoffData : msg.handoffData === undefined ? '' : JSON.stringify(msg.handoffData);
        connection.closedBy ??= 'agent';
        closeSocket(this.#ws);
        return;
      default:
        this.#invalid(`Invalid message received: unknown type ${JSON.stringify(msg.type)}`);
    }
  }

  /** Twilio answers a message it cannot use with an `error` message and carries on. */
  #invalid(description: string): void {
    recordError(this.#ctx.recording, `relay: ${description}`);
    this.#send({ type: 'error', description });
  }
}
