import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import type { ClockListener } from './frame-clock.js';
import type { CallTurn, MarkRecord } from './phone-types.js';
import { FRAME_BYTES, SILENCE_PAYLOAD, speechFrames, speechMs } from './speech-frames.js';
import { closeSocket, legClosed, recordError, type LegContext, type VoiceLeg } from './voice-leg.js';

/** Decoded payloads land here (one call at a time, synchronously), so receiving allocates nothing. */
const SCRATCH = Buffer.allocUnsafe(64 * 1024);
/** The agent counts as talking for this long after its last media message. */
const TALKING_TAIL_MS = 100;
const DTMF_GAP_MS = 100;

interface PendingMark {
  /** Position in the received audio (bytes) the mark follows. */
  at: number;
  record: MarkRecord;
}

/**
 * The phone's side of a Twilio Media Stream, or of a Telnyx media stream (the same frames in Telnyx's dialect). It sends `connected` and `start`, then one 20 ms
 * μ-law frame per clock tick (scripted speech, else silence), `dtmf` and finally `stop`. Audio the
 * gateway sends is queued and "played" at 160 bytes a tick; a `mark` is answered once the audio
 * before it has played, and `clear` drops the queue and answers the pending marks, as Twilio does.
 */
export class MediaStreamLeg implements VoiceLeg, ClockListener {
  readonly mode = 'stream' as const;
  readonly closed: Promise<void>;
  readonly #ws: WebSocket;
  readonly #ctx: LegContext;
  readonly #streamSid: string;
  #seq = 0;
  #chunk = 0;
  #startDue: number | undefined;
  #speech: readonly string[] | null = null;
  #speechAt = 0;
  #speechDone: (() => void) | undefined;
  /** Bytes of received audio not yet played: playback needs only the count. */
  #queued = 0;
  #enqueued = 0;
  #played = 0;
  #marks: PendingMark[] = [];
  #lastMediaAt = Number.NEGATIVE_INFINITY;
  /** When the queued audio last finished playing. */
  #drainedAt = Number.NEGATIVE_INFINITY;
  #wrongSidReported = false;
  /** Telnyx's dialect: snake_case fields, `stream_id`, `call_control_id`, PCMU; frames back carry no stream id. */
  readonly #telnyx: boolean;

  constructor(ws: WebSocket, ctx: LegContext) {
    this.#ws = ws;
    this.#ctx = ctx;
    this.#streamSid = ctx.connection.sessionId;
    this.#telnyx = ctx.call.telnyx !== undefined;
    this.closed = legClosed(ws, ctx, this, () => this.#finishSpeech());
    ws.on('message', (data) => this.#onMessage(data));
  }

  start(): void {
    if (this.#telnyx) return this.#startTelnyx();
    const { call } = this.#ctx;
    const sid = this.#streamSid;
    this.#send('{"event":"connected","protocol":"Call","version":"1.0.0"}');
    this.#send(
      JSON.stringify({
        event: 'start',
        sequenceNumber: String(++this.#seq),
        start: {
          accountSid: call.accountSid,
          streamSid: sid,
          callSid: call.sid,
          tracks: ['inbound'],
          customParameters: this.#ctx.connection.parameters,
          mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        },
        streamSid: sid,
      }),
    );
    this.#ctx.conversation.connectedAt = performance.now();
    this.#ctx.clock.add(this);
  }

  /** Telnyx's opening frames: `connected`, then `start` naming the call (call_control_id), its client_state and the PCMU format. */
  #startTelnyx(): void {
    const { call } = this.#ctx;
    const t = call.telnyx!;
    this.#send('{"event":"connected","version":"1.0.0"}');
    this.#send(
      JSON.stringify({
        event: 'start',
        sequence_number: String(++this.#seq),
        stream_id: this.#streamSid,
        start: {
          user_id: call.accountSid,
          call_control_id: call.sid,
          call_session_id: t.callSessionId,
          from: call.from,
          to: call.to,
          tags: [],
          ...(t.clientState ? { client_state: t.clientState } : {}),
          custom_parameters: this.#ctx.connection.parameters,
          media_format: { encoding: 'PCMU', sample_rate: 8000, channels: 1 },
        },
      }),
    );
    this.#ctx.conversation.connectedAt = performance.now();
    this.#ctx.clock.add(this);
  }

  onTick(dueAt: number): void {
    if (this.#ws.readyState !== WebSocket.OPEN) return;
    const now = performance.now();
    this.#startDue ??= dueAt;
    let payload = SILENCE_PAYLOAD;
    if (this.#speech) {
      payload = this.#speech[this.#speechAt++]!;
      if (this.#speechAt >= this.#speech.length) this.#finishSpeech();
    }
    this.#chunk++;
    this.#ws.send(
      this.#telnyx
        ? `{"event":"media","sequence_number":"${++this.#seq}","media":{"track":"inbound","chunk":"${this.#chunk}","timestamp":"${Math.round(dueAt - this.#startDue)}","payload":"${payload}"},"stream_id":"${this.#streamSid}"}`
        : `{"event":"media","sequenceNumber":"${++this.#seq}","media":{"track":"inbound","chunk":"${this.#chunk}","timestamp":"${Math.round(dueAt - this.#startDue)}","payload":"${payload}"},"streamSid":"${this.#streamSid}"}`,
    );
    const frames = this.#ctx.recording.frames;
    const jitter = Math.max(0, now - dueAt);
    frames.sent++;
    frames.meanJitterMs += (jitter - frames.meanJitterMs) / frames.sent;
    if (jitter > frames.maxJitterMs) frames.maxJitterMs = jitter;
    if (jitter > this.#ctx.lateFrameMs) frames.late++;
    this.#play(now);
    this.#ctx.conversation.poll(now);
  }

  speak(text: string, _language: string, bargeIn: boolean): Promise<void> {
    if (this.#ws.readyState !== WebSocket.OPEN) return Promise.resolve();
    const { conversation } = this.#ctx;
    const interrupting = this.agentSpeaking(performance.now());
    const turn = conversation.callerStarts({ text, bargeIn });
    if (interrupting) this.#previous(turn).agent.interrupted = true;
    this.#finishSpeech();
    this.#speech = speechFrames(text);
    this.#speechAt = 0;
    return new Promise((resolve) => {
      this.#speechDone = () => {
        conversation.callerEnds(turn);
        resolve();
      };
    });
  }

  async sendDigits(digits: string): Promise<void> {
    const { conversation } = this.#ctx;
    const turn = conversation.callerStarts({ digits, bargeIn: false });
    for (const digit of digits) {
      if (this.#ws.readyState !== WebSocket.OPEN) break;
      this.#send(
        this.#telnyx
          ? `{"event":"dtmf","stream_id":"${this.#streamSid}","sequence_number":"${++this.#seq}","dtmf":{"digit":${JSON.stringify(digit)}}}`
          : `{"event":"dtmf","streamSid":"${this.#streamSid}","sequenceNumber":"${++this.#seq}","dtmf":{"track":"inbound_track","digit":${JSON.stringify(digit)}}}`,
      );
      const until = performance.now() + DTMF_GAP_MS;
      await conversation.waitFor((now) => now >= until, DTMF_GAP_MS * 2);
    }
    conversation.callerEnds(turn);
  }

  agentSpeaking(now: number): boolean {
    return this.#queued > 0 || now - this.#lastMediaAt < TALKING_TAIL_MS;
  }

  agentQuiet(now: number, quietMs: number): boolean {
    return this.#queued === 0 && now - Math.max(this.#lastMediaAt, this.#drainedAt) >= quietMs;
  }

  close(by: 'caller' | 'agent' | 'redirect' | 'error'): void {
    if (this.#ws.readyState === WebSocket.OPEN) {
      this.#ctx.connection.closedBy ??= by;
      const { call } = this.#ctx;
      this.#send(
        JSON.stringify(
          this.#telnyx
            ? { event: 'stop', sequence_number: String(++this.#seq), stream_id: this.#streamSid, stop: { user_id: call.accountSid, call_control_id: call.sid } }
            : { event: 'stop', sequenceNumber: String(++this.#seq), streamSid: this.#streamSid, stop: { accountSid: call.accountSid, callSid: call.sid } },
        ),
      );
      closeSocket(this.#ws);
    } else if (this.#ws.readyState === WebSocket.CONNECTING) {
      this.#ctx.connection.closedBy ??= by;
      this.#ws.terminate();
    }
  }

  #send(message: string): void {
    if (this.#ws.readyState === WebSocket.OPEN) this.#ws.send(message);
  }

  #finishSpeech(): void {
    this.#speech = null;
    const done = this.#speechDone;
    this.#speechDone = undefined;
    done?.();
  }

  /** The turn before `turn`, whose reply a barge-in interrupts. */
  #previous(turn: CallTurn): CallTurn {
    return this.#ctx.recording.turns[turn.index - 1] ?? turn;
  }

  /** Plays one frame's worth of queued audio and answers the marks it passes. */
  #play(now: number): void {
    const played = Math.min(FRAME_BYTES, this.#queued);
    if (played === 0) {
      if (this.#marks.length > 0) this.#answerMarks();
      return;
    }
    this.#queued -= played;
    if (this.#queued === 0) this.#drainedAt = now;
    this.#played += played;
    this.#ctx.recording.frames.playedMs += played / 8;
    this.#answerMarks();
  }

  #answerMarks(): void {
    while (this.#marks.length > 0 && this.#marks[0]!.at <= this.#played) this.#answerMark(this.#marks.shift()!, false);
  }

  #answerMark(mark: PendingMark, cleared: boolean): void {
    mark.record.answeredAt = new Date();
    mark.record.cleared = cleared;
    this.#send(
      JSON.stringify(
        this.#telnyx
          ? { event: 'mark', sequence_number: String(++this.#seq), stream_id: this.#streamSid, mark: { name: mark.record.name } }
          : { event: 'mark', sequenceNumber: String(++this.#seq), streamSid: this.#streamSid, mark: { name: mark.record.name } },
      ),
    );
  }

  #onMessage(data: WebSocket.RawData): void {
    let msg: { event?: unknown; streamSid?: unknown; media?: { payload?: unknown }; mark?: { name?: unknown } };
    try {
      msg = JSON.parse(String(data));
    } catch {
      recordError(this.#ctx.recording, 'stream: a message from the gateway is not JSON');
      return;
    }
    // Telnyx's frames to it name no stream; Twilio's must name this one.
    if (!this.#wrongSidReported && (this.#telnyx ? msg.streamSid !== undefined : msg.streamSid !== this.#streamSid)) {
      this.#wrongSidReported = true;
      recordError(this.#ctx.recording, `stream: ${String(msg.event)} message carries streamSid ${String(msg.streamSid)}, expected ${this.#streamSid}`);
    }
    const now = performance.now();
    const { recording, conversation } = this.#ctx;
    switch (msg.event) {
      case 'media': {
        const payload = msg.media?.payload;
        if (typeof payload !== 'string') {
          recordError(recording, 'stream: media message without a base64 payload');
          return;
        }
        const audio = payload.length <= (SCRATCH.length / 3) * 4 ? SCRATCH.subarray(0, SCRATCH.write(payload, 'base64')) : Buffer.from(payload, 'base64');
        if (audio.length === 0) return;
        this.#queued += audio.length;
        this.#enqueued += audio.length;
        const speech = speechMs(audio);
        recording.frames.received++;
        recording.frames.receivedMs += audio.length / 8;
        recording.frames.speechMs += speech;
        conversation.agentOutput({ audio, speechMs: speech }, now);
        this.#lastMediaAt = now;
        return;
      }
      case 'mark': {
        const name = msg.mark?.name;
        if (typeof name !== 'string') {
          recordError(recording, 'stream: mark message without mark.name');
          return;
        }
        const record: MarkRecord = { name, receivedAt: new Date(), cleared: false, queuedMs: this.#queued / 8 };
        recording.marks.push(record);
        this.#marks.push({ at: this.#enqueued, record });
        return;
      }
      case 'clear': {
        const dropped = this.#queued;
        this.#queued = 0;
        this.#played = this.#enqueued;
        this.#drainedAt = now;
        recording.frames.clearedMs += dropped / 8;
        recording.clears.push({ at: new Date(), droppedMs: dropped / 8, duringCallerSpeech: conversation.callerSpeaking });
        if (dropped > 0 && conversation.callerSpeaking) this.#previous(conversation.current).agent.interrupted = true;
        for (const mark of this.#marks.splice(0)) this.#answerMark(mark, true);
        return;
      }
      default:
        recordError(recording, `stream: unknown event ${JSON.stringify(msg.event)} from the gateway`);
    }
  }
}
