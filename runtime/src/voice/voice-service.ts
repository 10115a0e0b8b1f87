import type { VoiceWebhook, WebhookAnswer } from '../agents/catalogue.js';
import { verifyWebhook } from '../drivers/verify-webhook.js';
import { ErrorCodes, SwitchboardError, type Driver, type WebhookRequest } from '@switchboard/sdk';
import type { DeliveryService } from '../delivery/delivery-service.js';
import type { DriverSet } from '../drivers/registry.js';
import type { RuntimeEvents } from '../events.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { Store } from '../store/store.js';
import type { AgentTurns } from './agent-turns.js';
import { CallSessions, type CallSession } from './call-session.js';
import { CallDialogue, type MessageTaken } from './dialogue.js';
import { newId } from '../ids.js';
import { newDeadLetter } from '../store/repositories/dead-letters.js';
import type { Logger } from '../logger.js';
import type { SharedCallSessions } from '../cluster/shared-call-sessions.js';

/**
 * Voice calls on this node: the live sessions, the provider's voice webhooks (signature checked with
 * the telephony driver's own verifier), the call log, and the dialogue each media connection drives.
 * Embedded, a session lives in this process from admission to hang-up. In a cluster the runtime node
 * that admits a call writes its session to {@link SharedCallSessions}, and the gateway that takes the
 * media WebSocket reads it there and holds the live call; what the call leaves for the agent (a
 * voicemail, a callee's reply) goes back to the agent's actor through `forwardTaken`.
 */
export class VoiceService {
  /** The live calls this process holds. */
  readonly sessions = new CallSessions();
  #shared: SharedCallSessions | undefined;
  #forwardTaken: MessageTaken | undefined;

  constructor(
    private readonly store: Store,
    private readonly drivers: DriverSet,
    private readonly delivery: DeliveryService,
    private readonly events: RuntimeEvents,
    readonly turns: AgentTurns,
    private readonly options: { mode: 'relay' | 'stream'; maxCallSeconds: number; publicBaseUrl: () => string },
    private readonly logger?: Logger,
  ) {}

  /**
   * Cluster mode: sessions are written to and read from the shared bucket, not kept by the node that
   * admits them; `forwardTaken` (gateways) hands a message a call took to the agent's actor.
   */
  share(shared: SharedCallSessions, forwardTaken?: MessageTaken): void {
    this.#shared = shared;
    this.#forwardTaken = forwardTaken;
  }

  /** Makes a new session findable by its media connection (and, embedded, by its call sid). */
  async register(session: CallSession): Promise<void> {
    if (this.#shared) await this.#shared.put(session);
    else this.sessions.add(session);
  }

  /** Ties a session to the provider's call once the call is placed. */
  bind(session: CallSession, callSid: string): void {
    if (this.#shared) session.callSid = callSid;
    else this.sessions.bindCall(session, callSid);
  }

  /** The session a media connection or an answered call names: held here, else (cluster) shared. */
  async find(sessionId: string): Promise<CallSession | undefined> {
    const held = this.sessions.get(sessionId);
    if (held || !this.#shared) return held;
    try {
      return await this.#shared.get(sessionId);
    } catch (err) {
      this.logger?.warn({ err, sessionId }, 'the shared call session could not be read');
      return undefined;
    }
  }

  /** A media connection took this session: this process holds the live call now. */
  hold(session: CallSession): void {
    if (!this.sessions.get(session.sessionId)) this.sessions.add(session);
  }

  /** The media connection closed. In a cluster no status callback reaches this gateway, so the call is let go here. */
  released(session: CallSession): void {
    if (this.#shared && !session.ended) this.end(session);
  }

  /** The provider reported the call's end: its session goes (held here; in a cluster, its shared record). */
  async callEnded(callSid: string): Promise<void> {
    const session = this.sessions.byCall(callSid);
    if (session) this.end(session);
    else if (this.#shared) {
      const sessionId = (await this.store.calls.get(callSid))?.sessionId;
      if (sessionId) this.#forget(sessionId);
    }
  }

  #forget(sessionId: string): void {
    void this.#shared?.delete(sessionId).catch(() => undefined);
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

  /** Text-to-speech, or UNAVAILABLE naming what to configure. */
  tts(): NonNullable<Driver['tts']> {
    const tts = this.drivers.for('tts')?.tts;
    if (!tts) throw new SwitchboardError(ErrorCodes.UNAVAILABLE, 'No text-to-speech provider is configured; set ELEVENLABS_API_KEY, or add a driver offering tts to DRIVERS.');
    return tts;
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
    const { callSid } = this.telephonyDriver().telephony.parseCallWebhook(request);
    return (await this.store.calls.get(callSid))?.agentId;
  }

  /** The media WebSocket URL for a session (wss:// when the public URL is https). */
  mediaUrl(agentId: string): string {
    return `${this.options.publicBaseUrl().replace(/^http/, 'ws')}/webhooks/${encodeURIComponent(agentId)}/voice-ws`;
  }

  /** The answer that attaches a call to its media WebSocket, or plays a voice message. */
  answer(session: CallSession): WebhookAnswer {
    const telephony = this.telephonyDriver().telephony;
    if (session.purpose.kind === 'voice-message') {
      return { status: 200, ...telephony.render([{ kind: 'play', url: session.purpose.audioUrl }, { kind: 'hangup' }]) };
    }
    return {
      status: 200,
      ...telephony.render([
        {
          kind: 'connect',
          mode: session.mode,
          url: this.mediaUrl(session.agentId),
          parameters: { sessionId: session.sessionId },
          ...(session.voice ? { voice: session.voice } : {}),
          language: session.language,
        },
      ]),
    };
  }

  /** Starts a live call's dialogue once its media connection is up. */
  async dialogue(session: CallSession, agent: AgentRecord): Promise<CallDialogue> {
    const bridge = this.drivers.for('voice') !== undefined;
    const taken = this.#forwardTaken ?? ((s: CallSession, message: string) => this.messageTaken(s, agent, message));
    return new CallDialogue(session, agent, this.turns, taken, bridge, await this.turns.reachable(agent));
  }

  /**
   * A call ended with a message for the agent: the callee's reply to a call the agent placed is an
   * inbound voice message; anything else is a voicemail. Runs where the agent's actor is.
   */
  messageTaken(session: CallSession, agent: AgentRecord, message: string): Promise<void> {
    return session.direction === 'outbound' && session.purpose.kind === 'conversation' ? this.#replyTaken(session, agent, message) : this.#voicemail(session, agent, message);
  }

  /** Longest a call may run before it is ended politely. */
  get maxCallMs(): number {
    return this.options.maxCallSeconds * 1000;
  }

  /** The call has ended (its media closed, or the provider said so): forget the live session. */
  end(session: CallSession): void {
    session.ended = true;
    this.sessions.remove(session);
    if (this.#shared) this.#forget(session.sessionId);
  }

  /** Default mode of calls that do not ask for one. */
  get defaultMode(): 'relay' | 'stream' {
    return this.options.mode;
  }

  /**
   * The callee's answer to a call the agent placed, when no one could take the call's turns: an inbound
   * voice message, delivered like any other (live session, callback URL, else an `agent_offline` dead letter).
   */
  async #replyTaken(session: CallSession, agent: AgentRecord, message: string): Promise<void> {
    const now = new Date().toISOString();
    const record: MessageRecord = {
      id: newId('msg'),
      agentId: agent.agentId,
      channel: 'voice',
      direction: 'inbound',
      from: session.to,
      to: session.from,
      subject: null,
      body: message,
      html: null,
      mediaUrls: [],
      externalId: session.callSid ?? session.sessionId,
      status: 'received',
      segments: 1,
      cost: null,
      error: null,
      delivery: 'pending',
      createdAt: now,
      updatedAt: now,
    };
    if (!(await this.store.messages.insertInbound(record))) return;
    this.events.emit('message', { channel: 'voice', direction: 'inbound', status: 'received' });
    await this.delivery.schedule(record, agent);
  }

  async #voicemail(session: CallSession, agent: AgentRecord, message: string): Promise<void> {
    const transcript = session.transcript.map((l) => `${l.role === 'caller' ? 'Caller' : 'Agent'}: ${l.text}`).join('\n');
    await this.store.deadLetters.insert(
      newDeadLetter({
        agentId: agent.agentId,
        channel: 'voice',
        direction: 'inbound',
        reason: 'voicemail',
        from: session.direction === 'inbound' ? session.from : session.to,
        to: session.direction === 'inbound' ? session.to : session.from,
        subject: session.purpose.kind === 'secretary' ? 'Message taken on a secretary call' : 'Voicemail',
        body: transcript,
        mediaUrls: [],
        externalId: session.callSid,
        attempts: 0,
      }),
    );
    this.events.emit('deadLetter', { agentId: agent.agentId, reason: 'voicemail' });
    if (agent.callbackUrl) {
      this.delivery.notify(agent.agentId, {
        id: newId('evt'),
        type: 'voicemail',
        agentId: agent.agentId,
        createdAt: new Date().toISOString(),
        data: { sessionId: session.sessionId, callSid: session.callSid, from: session.from, to: session.to, message, transcript: session.transcript },
      });
    }
  }
}
