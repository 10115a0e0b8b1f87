import type { WebhookRequest } from './driver.js';

/** Audio formats Switchboard moves between drivers: G.711 μ-law at 8 kHz, or 16-bit little-endian PCM. */
export type AudioFormat = 'ulaw_8000' | 'pcm_8000' | 'pcm_16000' | 'pcm_24000';

/** Synthesised speech. */
export interface SynthesizedAudio {
  readonly audio: Buffer;
  readonly format: AudioFormat;
  readonly sampleRate: number;
}

/** A voice a TTS provider offers. */
export interface VoiceInfo {
  readonly id: string;
  readonly name: string;
  readonly language?: string;
}

/** Text-to-speech. */
export interface SpeechSynthesis {
  synthesize(request: { text: string; voice?: string; format: AudioFormat; language?: string }): Promise<SynthesizedAudio>;
  voices(): Promise<VoiceInfo[]>;
}

/** Streaming speech-to-text: one stream per call leg, fed audio as it arrives. */
export interface SpeechRecognition {
  open(options: { encoding: 'mulaw' | 'linear16'; sampleRate: 8000 | 16000; language?: string }): Promise<RecognitionStream>;
}

/** A live recognition stream. */
export interface RecognitionStream {
  /** Feeds audio in the encoding the stream was opened with. */
  write(audio: Buffer): void;
  /** Marks the end of an utterance; resolves with its final transcript ('' when nothing was said). */
  finalize(): Promise<string>;
  /** Ends the stream; pending finalize calls resolve with what was heard. */
  close(): Promise<void>;
}

/** One step of what a call should do, provider-neutral; the telephony driver renders it (TwiML for Twilio). */
export type CallStep =
  | {
      readonly kind: 'connect';
      /** `relay`: the provider does STT/TTS and exchanges text (ConversationRelay); `stream`: raw audio (Media Streams). */
      readonly mode: 'relay' | 'stream';
      /** The wss:// URL of the voice WebSocket. */
      readonly url: string;
      /** Custom parameters handed to the WebSocket's start/setup message. */
      readonly parameters?: Readonly<Record<string, string>>;
      readonly greeting?: string;
      readonly voice?: string;
      readonly language?: string;
    }
  | { readonly kind: 'say'; readonly text: string; readonly voice?: string; readonly language?: string }
  | { readonly kind: 'play'; readonly url: string }
  | { readonly kind: 'dial'; readonly number: string; readonly callerId?: string }
  | { readonly kind: 'pause'; readonly seconds: number }
  | { readonly kind: 'hangup' };

/** A call the provider accepted. */
export interface PlacedCall {
  readonly callSid: string;
  readonly status: string;
}

/** Voice calls. */
export interface Telephony {
  /**
   * Places a call; the provider fetches `answerUrl` when it is answered and posts status to `statusCallbackUrl`.
   * `steps` are what `answerUrl` would answer, for a provider that takes them with the call instead (Call Control).
   */
  placeCall(request: { from: string; to: string; answerUrl: string; statusCallbackUrl: string; timeoutSeconds?: number; steps?: readonly CallStep[] }): Promise<PlacedCall>;
  /**
   * Answers an incoming call with these steps, for a provider whose webhook answers carry no instructions
   * (Call Control): the runtime calls it instead of answering the incoming-call webhook with `render`, and
   * the provider posts the call's later events to `statusCallbackUrl`. Optional.
   */
  answerCall?(callSid: string, steps: readonly CallStep[], options: { statusCallbackUrl: string }): Promise<void>;
  /**
   * Reads the `start` frame of the provider's media stream, for a provider whose frames are not Twilio Media
   * Streams' (which the runtime reads itself); the other frames (`media` with `media.payload`, `dtmf`, `stop`)
   * have the same shape. Optional.
   */
  readStreamStart?(frame: Readonly<Record<string, unknown>>): MediaStreamStart;
  /** Replaces what a live call is doing (transfer, announcement, hang-up). */
  updateCall(callSid: string, steps: readonly CallStep[]): Promise<void>;
  /** The answer to a voice webhook: the provider's document (TwiML) for these steps. */
  render(steps: readonly CallStep[]): { contentType: string; body: string };
  /**
   * Reads a verified voice webhook (incoming call or status callback); undefined for an event that changes
   * no call's status (Call Control's `streaming.started`, `call.speak.ended`…); throws MALFORMED_PAYLOAD.
   */
  parseCallWebhook(request: WebhookRequest): CallStatusEvent | undefined;
  /**
   * Asks the provider for a call's status now, for when its status callbacks do not come: the call as
   * a status callback would carry it, undefined when the provider does not know the call; throws
   * PROVIDER_ERROR when it cannot be asked now. Optional.
   */
  fetchCall?(callSid: string): Promise<CallStatusEvent | undefined>;
  /** The provider's own recording of calls, for calls whose audio it holds (relay mode); optional. */
  readonly recording?: CallRecording;
}

/** What a media stream's `start` frame says. */
export interface MediaStreamStart {
  /** The session the call was connected with (the connect step's `sessionId` parameter). */
  readonly sessionId?: string;
  /** The provider's id of the call. */
  readonly callSid?: string;
  /** The stream's id when frames sent back must name it (Twilio's `streamSid`); undefined when they must not. */
  readonly streamSid?: string;
  /** The call goes on when its stream closes (Call Control): the runtime ends it with `updateCall([{ kind: 'hangup' }])`. */
  readonly outlivesStream?: boolean;
}

/** Recording by the provider: both legs of a live call in one file, announced by a signed callback when ready. */
export interface CallRecording {
  /** Starts recording a live call; the provider posts to `statusCallbackUrl` once the recording is ready (or failed). */
  start(callSid: string, options: { statusCallbackUrl: string }): Promise<void>;
  /** Reads a verified recording status callback; throws MALFORMED_PAYLOAD. */
  parseRecordingWebhook(request: WebhookRequest): RecordingEvent;
  /** Downloads a completed recording's audio with the driver's credentials (WAV). */
  fetch(recording: RecordingEvent): Promise<RecordingAudio>;
}

/** A recording status callback, normalised. */
export interface RecordingEvent {
  readonly type: 'recording';
  readonly callSid: string;
  /** The provider's id of the recording. */
  readonly recordingId: string;
  /** `completed` when the audio can be fetched; `failed` or `absent` otherwise. */
  readonly status: 'completed' | 'failed' | 'absent';
  readonly durationSeconds: number | null;
  /** Where the provider serves the audio (authenticated); what `fetch` reads. */
  readonly url: string;
}

/** A recording's audio as the provider served it. */
export interface RecordingAudio {
  readonly audio: Buffer;
  /** `audio/wav` (or `audio/x-wav`). */
  readonly contentType: string;
}

/** A call status callback, normalised. */
export interface CallStatusEvent {
  readonly type: 'call-status';
  readonly callSid: string;
  /** queued, ringing, in-progress, completed, busy, no-answer, failed, canceled. */
  readonly status: string;
  readonly durationSeconds: number | null;
  /** USD when the provider reports it. */
  readonly cost: number | null;
  readonly from?: string;
  readonly to?: string;
  readonly direction?: 'inbound' | 'outbound';
}
