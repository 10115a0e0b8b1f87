import type { VoiceWebhook, WebhookAnswer } from '../protocol/operations.js';
import { verifyWebhook } from '../drivers/webhook-port.js';
import { ErrorCodes, SwitchboardError, type CallStep, type Driver, type MediaStreamStart, type SynthesizedAudio, type WebhookRequest } from '@switchboard/sdk';
import type { DriverSet } from '../drivers/registry.js';
import type { RuntimeEvents } from '../events.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import type { Store } from '../store/store.js';
import type { AgentTurns } from './agent-turns.js';
import { CallSessions, traceOf, type CallSession } from './call-session.js';
import { entry, type CallLedger, type TurnTimer } from './call-ledger.js';
import { CallDialogue } from './dialogue.js';
import { callTranscriptEntry } from '../inbox/entries.js';
import type { Logger } from '../logger.js';
import type { CallDirectory } from './call-directory.js';
import type { CallMessages } from './call-messages.js';
import type { CallRecorder } from './call-recorder.js';
import type { CallRecordings } from './call-recordings.js';
import type { RecordingConsent } from '../compliance/recording-consent.js';
import type { ProviderCircuits } from '../drivers/provider-circuits.js';
import { speechCircuits, speechWithFailover } from './speech-failover.js';

/** TTS_FAILOVER_TIMEOUT_MS's default, for a service built without settings. */
const DEFAULT_TTS_FAILOVER_TIMEOUT_MS = 5000;
const DEFAULT_TTS_CIRCUIT = { failures: 5, halfOpenAfterMs: 30_000 };
/** Greetings whose audio is kept (a few KB each: seconds of 8 kHz μ-law). */
const GREETINGS_KEPT = 256;

/**
 * Voice calls on this node: the live sessions, the provider's voice webhooks (signature checked with
 * the telephony driver's own verifier), the call log, and the dialogue each media connection drives.
 * The process that admits a call puts its session in the {@link CallDirectory} (in process, or
 * JetStream KV in a cluster, where a runtime node admits it), and the process that takes the media
 * connection (embedded, or a cluster gateway) finds it there and holds the live call; what the call
 * leaves for the agent (a voicemail, a callee's reply) goes to {@link CallMessages} (stored in place,
 * or handed to the agent's actor from a cluster gateway).
 */
export class VoiceService {
  /** The live calls this process holds. */
  readonly sessions = new CallSessions();
  /** Greetings' audio by voice and text, most recently used last. */
  readonly #greetings = new Map<string, Promise<SynthesizedAudio>>();
  #speechCircuits: ProviderCircuits | undefined;

  constructor(
    private readonly store: Store,
    private readonly drivers: DriverSet,
    private readonly events: RuntimeEvents,
    readonly turns: AgentTurns,
    /** Where admitted calls wait for their media connection. */
    private readonly directory: CallDirectory,
    /** Where a message a call took for the agent goes. */
    private readonly messages: CallMessages,
    private readonly options: {
      mode: 'relay' | 'stream';
      maxCallSeconds: number;
      publicBaseUrl: () => string;
      recordings: CallRecordings;
      recordingConsent?: RecordingConsent;
      /** With several TTS providers, how long one may take for a turn's speech before the next is asked (TTS_FAILOVER_TIMEOUT_MS). */
      ttsFailoverTimeoutMs?: number;
      /** The TTS providers' circuits (PROVIDER_CIRCUIT_FAILURES, PROVIDER_CIRCUIT_HALF_OPEN_MS), as the message providers'. */
      ttsCircuit?: { failures: number; halfOpenAfterMs: number };
    },
    private readonly logger?: Logger,
  ) {}

  /** Where call recordings are stored. */
  get recordings(): CallRecordings {
    return this.options.recordings;
  }

  /**
   * A relay call to be recorded has connected: the provider, which holds its audio, records it and
   * posts the recording's callback to `/webhooks/voice/recording` when it is ready.
   */
  recordByProvider(session: CallSession): void {
    const recording = this.drivers.for('voice')?.telephony?.recording;
    const log = { sessionId: session.sessionId, callSid: session.callSid, ...traceOf(session) };
    if (!recording) return void this.logger?.warn({ ...log, provider: this.telephonyDriverName() }, 'the call is not recorded: its telephony driver cannot record calls');
    if (!session.callSid) return;
    recording
      .start(session.callSid, { statusCallbackUrl: `${this.options.publicBaseUrl()}/webhooks/voice/recording` })
      .catch((err: unknown) => this.logger?.warn({ ...log, err }, 'the provider did not start recording the call'));
  }

  /**
   * What a recorded call must say before anything else: the announcement the other party's place asks
   * for (all-party consent), in the call's language; undefined for a call not recorded or where one
   * party's consent will do. A place that cannot be looked up is announced to, as the strict choice.
   */
  async recordingAnnouncement(session: CallSession): Promise<string | undefined> {
    const consent = this.options.recordingConsent;
    if (!session.record || !consent) return undefined;
    const party = session.direction === 'outbound' ? session.to : session.from;
    try {
      return await consent.announcementFor(party, session.language);
    } catch (err) {
      this.logger?.warn({ err, sessionId: session.sessionId }, "the other party's place could not be looked up; the recording is announced");
      return consent.wordingFor(session.language);
    }
  }

  /** A stream-mode call's media closed: its recording is written (off the media path). */
  recorded(session: CallSession, recorder: CallRecorder): void {
    if (recorder.seconds === 0) return;
    this.recordings
      .save(session.sessionId, recorder.wav(), recorder.seconds)
      .catch((err: unknown) => this.logger?.warn({ err, sessionId: session.sessionId, ...traceOf(session) }, 'the call recording could not be written'));
  }

  /** Makes a new session findable by its media connection. */
  async register(session: CallSession): Promise<void> {
    await this.directory.put(session);
  }

  /** Ties a session to the provider's call once the call is placed. */
  bind(session: CallSession, callSid: string): void {
    if (this.sessions.get(session.sessionId)) this.sessions.bindCall(session, callSid);
    else session.callSid = callSid;
  }

  /** The session a media connection or an answered call names: held here, else in the directory. */
  async find(sessionId: string): Promise<CallSession | undefined> {
    const held = this.sessions.get(sessionId);
    if (held) return held;
    try {
      return await this.directory.get(sessionId);
    } catch (err) {
      this.logger?.warn({ err, sessionId }, 'the call directory could not be read');
      return undefined;
    }
  }

  /** A media connection took this session: this process holds the live call now. */
  hold(session: CallSession): void {
    if (!this.sessions.get(session.sessionId)) this.sessions.add(session);
  }

  /** The call's media connection took it: the call log says when. */
  connected(session: CallSession): void {
    this.store.calls.markConnected(session.sessionId, new Date().toISOString()).catch((err: unknown) => this.logger?.warn({ err, sessionId: session.sessionId }, 'the call could not be marked connected'));
  }

  /** A caller turn's reply has been said: where its time went, for the metrics of this process. */
  turnMeasured(session: CallSession, timer: TurnTimer): void {
    const { latencyMs, components } = entry(0, timer);
    this.events.emit('voiceTurn', { mode: session.mode, latencyMs, ...components });
  }

  /**
   * The call's media connection closed: its ledger and transcript are written with the call, once
   * (the status callback that ends the call waits for them, to send its summary).
   */
  conversationEnded(session: CallSession, ledger: CallLedger): void {
    if (!ledger.close()) return;
    const endedAt = new Date().toISOString();
    const transcript = ledger.transcript(session.transcript);
    // The transcript lands in the agent's inbox in the same commit (before it, while the call has none).
    const { callSid } = session;
    this.store.db
      .executeAll([
        ...(callSid ? [this.store.inbox.appendStatement(callTranscriptEntry({ ...session, callSid }, endedAt, transcript), { callConversationMissing: callSid })] : []),
        this.store.calls.saveConversationStatement(session.sessionId, endedAt, ledger.record(), transcript),
      ])
      .then(([, appended]) => {
        if (callSid && appended!.changes > 0) this.events.emit('inbox', { agentId: session.agentId });
      })
      .catch((err: unknown) => this.logger?.warn({ err, sessionId: session.sessionId, ...traceOf(session) }, 'the call ledger could not be written'));
  }

  /** A call's own work failed (a turn's agent or speech, the time limit's goodbye): logged; the call carries on. */
  callFailed(session: CallSession | undefined, err: unknown): void {
    this.logger?.warn({ err, sessionId: session?.sessionId, ...(session ? traceOf(session) : {}) }, 'a call step failed');
  }

  /**
   * The media connection closed: the call is let go here (in a cluster no status callback reaches
   * the gateway holding it).
   */
  released(session: CallSession): void {
    if (!session.ended) this.end(session);
  }

  /** The provider reported the call's end: its session goes (held here, else its directory entry). */
  async callEnded(callSid: string): Promise<void> {
    const session = this.sessions.byCall(callSid);
    if (session) this.end(session);
    else {
      const sessionId = (await this.store.calls.get(callSid))?.sessionId;
      if (sessionId) this.#forget(sessionId);
    }
  }

  #forget(sessionId: string): void {
    void this.directory.delete(sessionId).catch(() => undefined);
  }

  /** The driver that places calls and whose webhooks voice requests are verified with. */
  /** The telephony driver's package name, for logs; undefined when none is configured. */
  telephonyDriverName(): string | undefined {
    return this.drivers.for('voice')?.manifest.name;
  }

  telephonyDriver(): Driver & { telephony: NonNullable<Driver['telephony']> } {
    const driver = this.drivers.for('voice');
    if (!driver?.telephony) throw new SwitchboardError(ErrorCodes.UNAVAILABLE, 'No telephony provider is configured; set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN, or add a driver offering voice to DRIVERS.');
    return driver as Driver & { telephony: NonNullable<Driver['telephony']> };
  }

  /** Text-to-speech (going on to the next TTS_DRIVER provider when one fails), or UNAVAILABLE naming what to configure. */
  tts(): NonNullable<Driver['tts']> {
    const drivers = this.drivers.ordered('tts').filter((d): d is Driver & { tts: NonNullable<Driver['tts']> } => d.tts !== undefined);
    if (drivers.length === 0) throw new SwitchboardError(ErrorCodes.UNAVAILABLE, 'No text-to-speech provider is configured; set ELEVENLABS_API_KEY, or add a driver offering tts to DRIVERS.');
    if (drivers.length === 1) return drivers[0]!.tts;
    this.#speechCircuits ??= speechCircuits({ ...(this.options.ttsCircuit ?? DEFAULT_TTS_CIRCUIT), events: this.events });
    return speechWithFailover(drivers, this.options.ttsFailoverTimeoutMs ?? DEFAULT_TTS_FAILOVER_TIMEOUT_MS, this.#speechCircuits, this.events, this.logger);
  }

  /**
   * A greeting's call audio (8 kHz μ-law), synthesised once per text and voice and kept: every call of
   * an agent opens with the same words, and the first greeting frame should not wait on the provider's
   * first byte each time. A failed synthesis is not kept.
   */
  greetingSpeech(text: string, voice: string | undefined): Promise<SynthesizedAudio> {
    const key = `${voice ?? ''}\n${text}`;
    const kept = this.#greetings.get(key);
    if (kept) {
      this.#greetings.delete(key);
      this.#greetings.set(key, kept);
      return kept;
    }
    const speech = this.tts().synthesize({ text, format: 'ulaw_8000', ...(voice ? { voice } : {}) });
    this.#greetings.set(key, speech);
    speech.catch(() => this.#greetings.delete(key));
    if (this.#greetings.size > GREETINGS_KEPT) this.#greetings.delete(this.#greetings.keys().next().value as string);
    return speech;
  }

  /** Speech-to-text, or UNAVAILABLE naming what to configure. */
  stt(): NonNullable<Driver['stt']> {
    const stt = this.drivers.for('stt')?.stt;
    if (!stt) throw new SwitchboardError(ErrorCodes.UNAVAILABLE, 'No speech-to-text provider is configured; set DEEPGRAM_API_KEY, or add a driver offering stt to DRIVERS.');
    return stt;
  }

  /** A voice webhook as the driver reads it; its signature was checked by the gateway before the bus. */
  request(webhook: VoiceWebhook): WebhookRequest {
    return { channel: 'voice', method: webhook.method, url: webhook.url, headers: webhook.headers, rawBody: Buffer.from(webhook.rawBodyBase64, 'base64') };
  }

  /** Checks a voice webhook's (or media upgrade's) provider signature; throws SIGNATURE_INVALID. The gateway runs it before the bus. */
  async verify(webhook: VoiceWebhook): Promise<WebhookRequest> {
    const request = this.request(webhook);
    await verifyWebhook(this.telephonyDriver(), request, this.events);
    return request;
  }

  /** The agent a status callback that names no agent belongs to, found by its CallSid in the call log; undefined for an unknown call. */
  async agentOfCall(request: WebhookRequest): Promise<string | undefined> {
    const event = this.telephonyDriver().telephony.parseCallWebhook(request);
    return event && (await this.store.calls.get(event.callSid))?.agentId;
  }

  /** The agent a recording callback belongs to, found by its CallSid in the call log; undefined for an unknown call. */
  async agentOfRecording(request: WebhookRequest): Promise<string | undefined> {
    const recording = this.telephonyDriver().telephony.recording;
    if (!recording) throw new SwitchboardError(ErrorCodes.UNAVAILABLE, 'The telephony driver cannot record calls.');
    return (await this.store.calls.get(recording.parseRecordingWebhook(request).callSid))?.agentId;
  }

  /** The media WebSocket URL for a session (wss:// when the public URL is https). */
  mediaUrl(agentId: string): string {
    return `${this.options.publicBaseUrl().replace(/^http/, 'ws')}/webhooks/${encodeURIComponent(agentId)}/voice-ws`;
  }

  /** The answer that attaches a call to its media WebSocket, or plays a voice message. */
  answer(session: CallSession): WebhookAnswer {
    return { status: 200, ...this.telephonyDriver().telephony.render(this.answerSteps(session)) };
  }

  /** What an answered call does: attach to its media WebSocket, or play a voice message and hang up. */
  answerSteps(session: CallSession): CallStep[] {
    if (session.purpose.kind === 'voice-message') return [{ kind: 'play', url: session.purpose.audioUrl }, { kind: 'hangup' }];
    return [
      {
        kind: 'connect',
        mode: session.mode,
        url: this.mediaUrl(session.agentId),
        parameters: { sessionId: session.sessionId },
        ...(session.voice ? { voice: session.voice } : {}),
        language: session.language,
      },
    ];
  }

  /** A media stream's start frame as its telephony driver reads it; Twilio Media Streams' own when the driver leaves it to us. */
  streamStart(frame: Readonly<Record<string, unknown>>): MediaStreamStart {
    const read = this.drivers.for('voice')?.telephony?.readStreamStart;
    if (read) return read(frame);
    const start = frame.start as { streamSid?: string; callSid?: string; customParameters?: Record<string, string> } | undefined;
    return { sessionId: start?.customParameters?.sessionId, callSid: start?.callSid, streamSid: start?.streamSid ?? '' };
  }

  /** Starts a live call's dialogue once its media connection is up. */
  async dialogue(session: CallSession, agent: AgentRecord): Promise<CallDialogue> {
    const bridge = this.drivers.for('voice') !== undefined;
    const taken = (s: CallSession, message: string) => this.messages.take(s, agent, message);
    return new CallDialogue(session, agent, this.turns, taken, bridge, await this.turns.reachable(agent));
  }

  /** Longest a call may run before it is ended politely. */
  get maxCallMs(): number {
    return this.options.maxCallSeconds * 1000;
  }

  /** The call has ended (its media closed, or the provider said so): forget the live session. */
  end(session: CallSession): void {
    session.ended = true;
    this.sessions.remove(session);
    this.#forget(session.sessionId);
  }

  /** Default mode of calls that do not ask for one. */
  get defaultMode(): 'relay' | 'stream' {
    return this.options.mode;
  }
}
