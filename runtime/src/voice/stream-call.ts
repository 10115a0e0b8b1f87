import { performance } from 'node:perf_hooks';
import type { MediaStreamStart, RecognitionStream } from '@switchboard/sdk';
import type { AudioWorkerPool } from '../audio/audio-worker-pool.js';
import { CALL_SAMPLE_RATE, splitFrames, toCallAudio } from '../audio/framing.js';
import type { InboundCallAudio } from '../audio/inbound-call-audio.js';
import { FramePacer } from '../audio/pacer.js';
import type { Store } from '../store/store.js';
import { clock, type TurnTimer } from './call-ledger.js';
import { CallRecorder } from './call-recorder.js';
import { MediaCall } from './media-call.js';
import type { VoiceService } from './voice-service.js';

/**
 * Reply audio leaves in 100 ms media messages, not 20 ms frames: a fifth of the timers, messages and
 * socket writes (a write per message per call was most of what a speaking call cost). The provider
 * plays what it holds in order and a barge-in's `clear` drops all of it, so the caller hears the same.
 */
const SEND_MS = 100;
/** Messages sent ahead of real time as a reply starts: one (100 ms), the cushion against late timers. */
const SEND_LEAD = 1;

/**
 * A call in stream mode: Twilio Media Streams carries 8 kHz μ-law both ways and Switchboard does the
 * speech. Each inbound payload is decoded from base64 once: speech-to-text takes the μ-law bytes as
 * they are, and voice activity, computed from the same bytes (no PCM is made), finds the end of each
 * utterance, which the speech-to-text driver then finalizes. The agent's reply is synthesised, cut
 * into 100 ms messages and paced out in real time with a mark after each reply. Caller speech during playback
 * (barge-in) stops the rest of the reply and sends `clear`.
 */
export class StreamCall extends MediaCall {
  #send: (text: string) => void = () => undefined;
  /** `,"streamSid":"…"` for frames sent back, or '' when the provider's frames name no stream. */
  #streamField = '';
  /** Closing the stream leaves the call up (Call Control): ending it takes a hang-up command. */
  #outlivesStream = false;
  /** The text of an outbound media message up to its payload: the same for every frame of the call. */
  #mediaPrefix = '';
  #audio: InboundCallAudio | undefined;
  #recognition: RecognitionStream | undefined;
  #pacer: FramePacer | undefined;
  #marks = 0;
  /** Both legs of the call, when it is recorded. */
  #recorder: CallRecorder | undefined;

  constructor(
    voice: VoiceService,
    store: Store,
    agentId: string,
    hangUp: () => void,
    private readonly pool: AudioWorkerPool,
  ) {
    super(voice, store, agentId, hangUp);
  }

  /** Where outgoing messages go (the WebSocket), as JSON text. */
  attach(send: (text: string) => void): this {
    this.#send = send;
    return this;
  }

  /**
   * Handles one Media Streams message. Media frames, 50 a second per call, are handled on the spot
   * and return nothing (no promise per frame); messages that wait on something return a promise.
   */
  handle(message: Record<string, unknown>): Promise<void> | undefined {
    switch (message.event) {
      case 'media':
        this.#media((message.media as { payload?: string } | undefined)?.payload);
        return undefined;
      case 'start':
        return this.#start(this.voice.streamStart(message));
      case 'dtmf': {
        const digit = (message.dtmf as { digit?: string } | undefined)?.digit;
        return digit ? this.heard(digit) : undefined;
      }
      case 'stop':
        this.closed();
        return undefined;
      default:
        return undefined; // connected, mark: nothing to do
    }
  }

  override closed(): void {
    this.#pacer?.stop();
    this.#audio?.close();
    void this.#recognition?.close().catch(() => undefined);
    if (this.#recorder && this.session) this.voice.recorded(this.session, this.#recorder);
    this.#recorder = undefined;
    super.closed();
  }

  /** This process holds a stream call's audio: it records both legs as they pass. */
  protected record(): void {
    this.#recorder = new CallRecorder();
  }

  protected async say(text: string, timer?: TurnTimer): Promise<void> {
    timer?.mark('ttsAsked');
    const voice = this.session?.voice ?? undefined;
    const speech = await (timer === this.ledger.greeting ? this.voice.greetingSpeech(text, voice) : this.voice.tts().synthesize({ text, format: 'ulaw_8000', ...(voice ? { voice } : {}) }));
    timer?.mark('ttsFirstAudio');
    const frames = splitFrames(toCallAudio(speech.audio, speech.format), (CALL_SAMPLE_RATE / 1000) * SEND_MS);
    // A turn's reply supersedes one still playing: the caller said something new without speaking over
    // it (they began before it did), so the rest of the older reply answers nothing; queued behind it,
    // the new reply would wait for it to finish.
    if (timer && this.#pacer?.playing) this.#clear();
    const due = this.#pacer?.enqueue(frames, `reply-${++this.#marks}`);
    // An idle pacer sends the first frames before enqueue returns; a busy one sends them when due.
    if (due !== undefined) timer?.mark('firstFrameSent', Math.max(performance.timeOrigin + due, clock()));
  }

  protected async finish(): Promise<void> {
    await this.#pacer?.drained();
    if (this.session) this.voice.end(this.session);
    this.hangUp();
    const callSid = this.session?.callSid;
    if (this.#outlivesStream && callSid) await this.voice.telephonyDriver().telephony.updateCall(callSid, [{ kind: 'hangup' }]);
  }

  #media(payload: string | undefined): void {
    if (!payload || !this.#audio?.isOpen) return;
    // Decoded once: speech-to-text keeps these bytes, VAD reads them on the spot.
    const mulaw = Buffer.from(payload, 'base64');
    this.#recognition?.write(mulaw);
    this.#recorder?.caller(mulaw);
    this.#audio.push(mulaw);
  }

  async #start(start: MediaStreamStart): Promise<void> {
    this.mediaStarted();
    // A provider whose frames name no stream (Telnyx) gets none back.
    this.#streamField = start.streamSid === undefined ? '' : `,"streamSid":${JSON.stringify(start.streamSid)}`;
    this.#outlivesStream = start.outlivesStream === true;
    // Every media message of a reply differs only in its payload (base64, nothing to escape).
    this.#mediaPrefix = `{"event":"media"${this.#streamField},"media":{"payload":"`;
    this.#pacer = new FramePacer({
      frameMs: SEND_MS,
      leadFrames: SEND_LEAD,
      // A view on the frame's memory, not a copy: it is only read to make the base64.
      send: (frame) => {
        this.#recorder?.agent(frame);
        this.#send(`${this.#mediaPrefix}${Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength).toString('base64')}"}}`);
      },
      mark: (name) => this.#send(`{"event":"mark"${this.#streamField},"mark":{"name":${JSON.stringify(name)}}}`),
    });
    // The greeting does not wait for speech-to-text to connect; a failure of either is answered below.
    const begun = this.begin(start.sessionId, start.callSid);
    begun.catch(() => undefined);
    this.#recognition = await this.voice.stt().open({ encoding: 'mulaw', sampleRate: 8000, ...(this.session?.language ? { language: this.session.language } : {}) });
    this.#audio = this.pool.openCall({
      // Speech-to-text takes the μ-law as it is; only VAD's events are read here, so no PCM is made.
      pcm: false,
      onAudio: (audio) => {
        for (const event of audio.events) {
          if (event.type === 'speech-start' && this.#pacer?.playing) this.#bargeIn();
          if (event.type === 'speech-end') this.detached(this.#utteranceEnded(this.#endpointed(event.atMs)));
        }
      },
    });
    if (!(await begun)) this.hangUp();
  }

  /** The caller spoke over the reply: drop the rest and tell the provider to clear what it buffered. */
  #bargeIn(): void {
    const at = clock();
    this.#clear();
    this.bargedIn(at, clock() - at);
  }

  /** Drops the rest of what is playing, here and in the provider's buffer. */
  #clear(): void {
    this.#pacer?.stop();
    this.#send(`{"event":"clear"${this.#streamField}}`);
  }

  /** Our endpointing decided the utterance ended (its last speech at `speechEndMs` of call audio): a turn starts. */
  #endpointed(speechEndMs: number): TurnTimer {
    const timer = MediaCall.turnStarted();
    if (this.#audio) timer.endpointingMs = this.#audio.vad.elapsedMs - speechEndMs;
    return timer;
  }

  async #utteranceEnded(timer: TurnTimer): Promise<void> {
    const text = await this.#recognition?.finalize().catch(() => '');
    timer.mark('transcriptReady');
    await (text ? this.heard(text, timer) : this.unheard(timer));
  }
}
