import { ErrorCodes, SwitchboardError, type CallStatusEvent } from '@switchboard/sdk';
import type { AgentOperationContext, AgentOperations } from '../actors/actor-system.js';
import type { MakeCallRequest, WebhookAnswer } from '../protocol/operations.js';
import { Continuation } from '../actors/continuation.js';
import { requireAgent } from '../agents/operations.js';
import type { Tariffs } from '../billing/tariffs.js';
import { round4 } from '../billing/tariffs.js';
import type { DeliveryService } from '../delivery/delivery-service.js';
import { agentEvent } from '../delivery/events.js';
import { newId } from '../ids.js';
import { callStatusEntry } from '../inbox/entries.js';
import type { Limiter } from '../limits/limiter.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import type { Store } from '../store/store.js';
import type { CallPurpose } from '../protocol/operations.js';
import { newSessionId, traceOf, type CallSession } from './call-session.js';
import { ENDED_STATUSES, endedCallSummary } from './call-reads.js';
import type { CallMessages } from './call-messages.js';
import type { VoiceService } from './voice-service.js';
import { reconcileCallOperation, type CallStatusApplication } from './reconcile-call.js';
import type { VoiceMessageStore } from './voice-messages.js';
import { recordedWav } from './recorded-wav.js';
import type { Logger } from '../logger.js';
import type { RuntimeEvents } from '../events.js';

/** What voice operations work with. */
export interface VoiceContext {
  readonly voice: VoiceService;
  /** Messages calls took for their agents, stored and delivered here. */
  readonly messages: CallMessages;
  readonly limiter: Limiter;
  readonly tariffs: Tariffs;
  readonly delivery: DeliveryService;
  readonly voiceMessages: VoiceMessageStore;
  /** Where a call's inbox entries are announced (after their commit). */
  readonly events: RuntimeEvents;
  readonly logger: Logger;
  publicBaseUrl(): string;
  /** How long after its start a call without a final status is recorded `unknown` (RECONCILE_BOUND_MS). */
  readonly reconcileBoundMs: number;
}

/** The agent's phone number ('' when it holds no voice channel; placing a call then refuses it). */
function voiceAddress(agent: AgentRecord): string {
  return agent.channels.find((c) => c.channel === 'voice')?.address ?? '';
}

const EMPTY: WebhookAnswer = { status: 200, contentType: 'text/plain', body: '' };

/**
 * A new call's log row, with the inbox entry of its start in the same commit; duration and cost come
 * later, from the provider's status callbacks.
 */
async function logNewCall(store: Store, events: RuntimeEvents, session: CallSession, callSid: string, direction: 'inbound' | 'outbound', status: string): Promise<void> {
  const now = new Date().toISOString();
  const call = {
    callSid,
    sessionId: session.sessionId,
    agentId: session.agentId,
    direction,
    mode: session.mode,
    from: session.from,
    to: session.to,
    status,
    durationSeconds: 0,
    cost: null,
    createdAt: now,
    updatedAt: now,
    traceparent: session.traceparent ?? null,
  };
  await store.db.executeAll([store.calls.insertStatement(call), store.inbox.appendStatement(callStatusEntry(call, status), { callLogged: callSid })]);
  events.emit('inbox', { agentId: call.agentId });
}

/** Voice operations every agent actor answers. */
export function voiceOperations(
  context: VoiceContext,
): Pick<AgentOperations, 'sendVoiceMessage' | 'makeCall' | 'callOnBehalf' | 'transferCall' | 'hangUpCall' | 'incomingCall' | 'outboundAnswer' | 'callMessageTaken' | 'callStatus' | 'callRecorded' | 'reconcileCall'> {
  const { voice } = context;

  /**
   * A call's status as its provider reports it (a status callback, or the reconciler's ask): the call
   * log and its inbox entry in one commit, call-minute usage, the session's end, and a `call.status`
   * event for the agent. With `read`, only over the status read then; `reason` says why a status is
   * `unknown`. Resolves whether the logged status changed.
   */
  async function applyCallStatus(store: Store, agent: AgentRecord, event: CallStatusEvent, application: CallStatusApplication = {}): Promise<boolean> {
    // A status change lands in the agent's inbox in the update's commit (a repeated status adds no entry).
    const logged = application.read ?? (await store.calls.get(event.callSid));
    const { reason } = application;
    const entry = logged && callStatusEntry(logged, event.status, event.durationSeconds, event.cost === null ? null : round4(event.cost), reason);
    const writes = [
      ...(entry ? [store.inbox.appendStatement(entry, application.read ? { callStatusIs: { callSid: event.callSid, status: application.read.status } } : { callStatusChangesTo: { callSid: event.callSid, status: event.status } })] : []),
      store.calls.updateStatusStatement(event.callSid, event.status, event.durationSeconds, event.cost, application.read?.status),
    ];
    const written = await store.db.executeAll(writes);
    const known = written.at(-1)!.changes > 0;
    const changed = Boolean(entry && written[1]!.changes > 0);
    if (changed) context.events.emit('inbox', { agentId: agent.agentId });
    if (known && event.status === 'completed' && event.durationSeconds !== null) {
      const minutes = Math.max(1, Math.ceil(event.durationSeconds / 60));
      await store.usage.insert({
        id: newId('use'),
        agentId: agent.agentId,
        channel: 'voice',
        action: 'call_minute',
        quantity: minutes,
        providerCost: event.cost,
        tariffCost: context.tariffs.cost('call_minute', minutes, logged?.direction === 'outbound' ? logged.to : undefined),
        externalId: event.callSid,
        createdAt: new Date().toISOString(),
      });
    }
    const ended = ENDED_STATUSES.includes(event.status);
    if (ended) {
      await voice.callEnded(event.callSid);
      context.logger.info({ agentId: agent.agentId, callSid: event.callSid, status: event.status, durationSeconds: event.durationSeconds, ...traceOf(logged ?? {}) }, 'call ended');
    }
    // A callback that overtook the commit of the call's log row read none; the row is there now.
    const call = logged ?? (known ? await store.calls.get(event.callSid) : undefined);
    if (known && context.delivery.reachable(agent)) {
      const data = { callSid: event.callSid, status: event.status, durationSeconds: event.durationSeconds, cost: event.cost === null ? null : round4(event.cost), ...(reason ? { reason } : {}) };
      // The call's end carries its summary, from the ledger its media connection writes as it closes
      // (maybe just after this callback): waited for off the webhook's answer.
      const summary = ended ? endedCallSummary(store, event.callSid) : Promise.resolve(undefined);
      void summary
        .catch((err: unknown) => context.logger.warn({ err, callSid: event.callSid }, 'the call summary could not be read'))
        .then((summary) => context.delivery.notify(agent.agentId, { ...agentEvent('call.status', agent.agentId, { ...data, ...(summary ? { summary } : {}) }), ...traceOf(call ?? {}) }));
    }
    return changed;
  }

  /** Places an outbound call for a session: limits first (actions, spend, calls per day to the number). */
  async function place(actor: AgentOperationContext['actor'], store: Store, agent: AgentRecord, session: CallSession) {
    const held = agent.channels.find((c) => c.channel === 'voice');
    if (!held) throw new SwitchboardError(ErrorCodes.CHANNEL_NOT_PROVISIONED, `Agent ${agent.agentId} has no voice channel; provision it first.`);
    if (agent.blockedChannels.includes('voice')) throw new SwitchboardError(ErrorCodes.CHANNEL_BLOCKED, `The voice channel of agent ${agent.agentId} is blocked by the operator.`);
    if (!/^\+[1-9][0-9]{6,14}$/.test(session.to)) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'to must be an E.164 phone number such as +14155550100.');
    const limits = await context.limiter.limitsOf(agent.agentId);
    if (limits.callsPerDayToSameNumber !== null) {
      const since = new Date(new Date().setUTCHours(0, 0, 0, 0)).toISOString();
      if ((await store.calls.countOutboundTo(agent.agentId, session.to, since)) >= limits.callsPerDayToSameNumber) {
        throw new SwitchboardError(ErrorCodes.RATE_LIMITED, `The agent reached its callsPerDayToSameNumber limit of ${limits.callsPerDayToSameNumber} for ${session.to}; it resets at UTC midnight.`, {
          retryable: true,
          retryAfter: Math.ceil((new Date().setUTCHours(24, 0, 0, 0) - Date.now()) / 1000),
          details: [{ limit: 'callsPerDayToSameNumber', value: limits.callsPerDayToSameNumber }],
        });
      }
    }
    const estimate = context.tariffs.cost('call_minute', 1, session.to);
    const admission = await context.limiter.admit(actor, estimate);
    return { held, admission, estimate };
  }

  async function dial(store: Store, agent: AgentRecord, session: CallSession) {
    const base = context.publicBaseUrl();
    const agentPath = `${base}/webhooks/${encodeURIComponent(agent.agentId)}`;
    const placed = await voice.telephonyDriver().telephony.placeCall({
      from: session.from,
      to: session.to,
      answerUrl: `${agentPath}/outbound-voice?session=${encodeURIComponent(session.sessionId)}`,
      statusCallbackUrl: `${agentPath}/call-status`,
    });
    voice.bind(session, placed.callSid);
    await logNewCall(store, context.events, session, placed.callSid, 'outbound', placed.status);
    context.logger.info({ agentId: agent.agentId, sessionId: session.sessionId, callSid: placed.callSid, ...traceOf(session) }, 'call placed');
    return placed;
  }

  /** Admits, registers and places a live call; the provider call runs outside the mailbox. */
  async function call<E extends object>({ actor, store, tenure }: AgentOperationContext, agent: AgentRecord, session: CallSession, extra: E) {
    const { admission } = await place(actor, store, agent, session);
    try {
      await voice.register(session);
    } catch (err) {
      context.limiter.release(actor, admission);
      throw err;
    }
    return new Continuation(async () => {
      try {
        tenure.assert();
        const placed = await dial(store, agent, session);
        return { success: true as const, callSid: placed.callSid, sessionId: session.sessionId, status: placed.status, from: session.from, to: session.to, ...extra };
      } catch (err) {
        const provider = voice.telephonyDriverName();
        context.logger.error({ provider, agentId: agent.agentId, sessionId: session.sessionId, to: session.to, ...traceOf(session), err }, 'provider did not place the call');
        context.limiter.release(actor, admission);
        voice.end(session);
        throw err;
      }
    });
  }

  function newSession(agent: AgentRecord, from: string, to: string, request: Partial<MakeCallRequest>, purpose: CallPurpose, direction: 'inbound' | 'outbound'): CallSession {
    return {
      sessionId: newSessionId(),
      agentId: agent.agentId,
      callSid: null,
      direction,
      mode: request.mode ?? voice.defaultMode,
      from,
      to,
      greeting: request.greeting ?? agent.greeting,
      systemPrompt: request.systemPrompt ?? agent.systemPrompt,
      voice: request.voice ?? agent.voice,
      language: request.language ?? agent.language ?? 'en-US',
      purpose,
      transcript: [],
      startedAt: Date.now(),
      ended: false,
      ...(request.traceparent ? { traceparent: request.traceparent } : {}),
      ...((request.record ?? agent.recordCalls) ? { record: true } : {}),
    };
  }

  return {
    /** Synthesises the text, keeps it as a WAV under an unguessable URL, and places a call that plays it. */
    async sendVoiceMessage({ actor, store, tenure }, payload) {
      const agent = requireAgent(actor);
      const { to, text, voice: voiceId } = payload;
      const from = voiceAddress(agent);
      const tts = voice.tts();
      const placeholder = newSession(agent, from, to, {}, { kind: 'voice-message', audioUrl: '' }, 'outbound');
      const { admission } = await place(actor, store, agent, placeholder);
      return new Continuation(async () => {
        try {
          const audio = await tts.synthesize({ text, format: 'pcm_16000', ...(voiceId ?? agent.voice ? { voice: (voiceId ?? agent.voice)! } : {}) });
          const message = await context.voiceMessages.save(audio.audio, audio.sampleRate);
          const session: CallSession = { ...placeholder, purpose: { kind: 'voice-message', audioUrl: message.url } };
          await voice.register(session);
          // Synthesis can take seconds: a node that lost the agent meanwhile places no call.
          tenure.assert();
          const placed = await dial(store, agent, session);
          await store.calls.saveSpokenText(session.sessionId, [{ turn: 0, role: 'agent', text, at: new Date().toISOString(), interrupted: false }]);
          await store.usage.insert({
            id: newId('use'),
            agentId: agent.agentId,
            channel: 'voice',
            action: 'tts_1k_characters',
            quantity: text.length / 1000,
            providerCost: null,
            tariffCost: context.tariffs.cost('tts_1k_characters', text.length / 1000),
            externalId: placed.callSid,
            createdAt: new Date().toISOString(),
          });
          return { success: true as const, callSid: placed.callSid, status: placed.status, from, to, audioUrl: message.url, durationSeconds: message.durationSeconds };
        } catch (err) {
          context.limiter.release(actor, admission);
          throw err;
        }
      });
    },

    async makeCall(operation, request) {
      const agent = requireAgent(operation.actor);
      const from = voiceAddress(agent);
      const session = newSession(agent, from, request.to, request, { kind: 'conversation' }, 'outbound');
      return call(operation, agent, session, {});
    },

    async callOnBehalf(operation, request) {
      const agent = requireAgent(operation.actor);
      const from = voiceAddress(agent);
      const purpose: CallPurpose = {
        kind: 'secretary',
        requesterPhone: request.requesterPhone,
        ...(request.targetName ? { targetName: request.targetName } : {}),
        ...(request.requesterName ? { requesterName: request.requesterName } : {}),
        ...(request.message ? { message: request.message } : {}),
      };
      const session = newSession(agent, from, request.target, { mode: 'relay', ...(request.traceparent ? { traceparent: request.traceparent } : {}) }, purpose, 'outbound');
      return call(operation, agent, session, { bridge: 'available' as const });
    },

    async transferCall({ actor, store }, payload) {
      const agent = requireAgent(actor);
      const { callSid, to, announcementText } = payload;
      const call = await store.calls.get(callSid);
      if (!call || call.agentId !== agent.agentId) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `No call ${callSid} for agent ${agent.agentId}.`);
      if (ENDED_STATUSES.includes(call.status)) {
        throw new SwitchboardError(ErrorCodes.CONFLICT, `Call ${callSid} has ended (${call.status}); only a live call can be transferred.`);
      }
      const from = voiceAddress(agent) || undefined;
      return new Continuation(async () => {
        await voice.telephonyDriver().telephony.updateCall(callSid, [
          ...(announcementText ? [{ kind: 'say' as const, text: announcementText }] : []),
          { kind: 'dial', number: to, ...(from ? { callerId: from } : {}) },
        ]);
        await store.usage.insert({
          id: newId('use'),
          agentId: agent.agentId,
          channel: 'voice',
          action: 'transfer',
          quantity: 1,
          providerCost: null,
          tariffCost: context.tariffs.cost('transfer', 1, to),
          externalId: callSid,
          createdAt: new Date().toISOString(),
        });
        return { success: true as const, callSid, transferredTo: to, status: 'transferred' as const };
      });
    },

    async hangUpCall({ actor, store }, { callSid }) {
      const agent = requireAgent(actor);
      const call = await store.calls.get(callSid);
      if (!call || call.agentId !== agent.agentId) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `No call ${callSid} for agent ${agent.agentId}.`);
      if (ENDED_STATUSES.includes(call.status)) throw new SwitchboardError(ErrorCodes.CONFLICT, `Call ${callSid} has ended (${call.status}).`);
      return new Continuation(async () => {
        await voice.telephonyDriver().telephony.updateCall(callSid, [{ kind: 'hangup' }]);
        return { success: true as const, callSid, status: 'hung-up' as const };
      });
    },

    /** A call to the agent's number: verified, then attached to the media WebSocket (or refused quietly when blocked). */
    async incomingCall({ actor, store }, payload) {
      const agent = requireAgent(actor);
      return new Continuation(async (): Promise<WebhookAnswer> => {
        const request = voice.request(payload);
        if (agent.blockedChannels.includes('voice')) return EMPTY;
        const event = voice.telephonyDriver().telephony.parseCallWebhook(request);
        const session = { ...newSession(agent, event.from ?? 'unknown', event.to ?? '', {}, { kind: 'conversation' }, 'inbound'), callSid: event.callSid };
        await voice.register(session);
        await logNewCall(store, context.events, session, event.callSid, 'inbound', event.status);
        return voice.answer(session);
      });
    },

    /** The provider fetches what an answered outbound call should do. */
    async outboundAnswer({ actor }, payload) {
      const agent = requireAgent(actor);
      return new Continuation(async (): Promise<WebhookAnswer> => {
        if (agent.blockedChannels.includes('voice')) return EMPTY;
        const sessionId = new URL(payload.url).searchParams.get('session') ?? '';
        const session = await voice.find(sessionId);
        if (!session || session.agentId !== agent.agentId) throw new SwitchboardError(ErrorCodes.NOT_FOUND, 'No live call session matches this request.');
        return voice.answer(session);
      });
    },

    /**
     * A call took a message for the agent (a voicemail, or the callee's reply when no one could take
     * the turns): a cluster gateway holding the call hands it here, to the agent's actor, which stores
     * and delivers it as an embedded call does in place.
     */
    async callMessageTaken({ actor }, payload) {
      const agent = requireAgent(actor);
      const { session, message } = payload;
      if (session.agentId !== agent.agentId) throw new SwitchboardError(ErrorCodes.BAD_REQUEST, 'The call belongs to another agent.');
      return new Continuation(async () => {
        await context.messages.take(session, agent, message);
        return { success: true as const };
      });
    },

    /** A call status callback: the call log, call-minute usage, and a `call.status` event for the agent. */
    async callStatus({ actor, store }, payload) {
      const agent = requireAgent(actor);
      return new Continuation(async (): Promise<WebhookAnswer> => {
        const request = voice.request(payload);
        const telephony = voice.telephonyDriver().telephony;
        await applyCallStatus(store, agent, telephony.parseCallWebhook(request));
        return { status: 200, ...telephony.render([]) };
      });
    },

    /** The provider's recording of a relay call is ready: downloaded with the driver's credentials and stored with the call. */
    async callRecorded({ actor, store }, payload) {
      const agent = requireAgent(actor);
      return new Continuation(async (): Promise<WebhookAnswer> => {
        const telephony = voice.telephonyDriver().telephony;
        if (!telephony.recording) throw new SwitchboardError(ErrorCodes.UNAVAILABLE, 'The telephony driver cannot record calls.');
        const event = telephony.recording.parseRecordingWebhook(voice.request(payload));
        const call = await store.calls.get(event.callSid);
        if (!call || call.agentId !== agent.agentId) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `No call ${event.callSid} for agent ${agent.agentId}.`);
        if (event.status === 'completed') {
          const fetched = await telephony.recording.fetch(event);
          // The length the page shows is the audio's own, the same the player reads, not the provider's whole seconds.
          const wav = recordedWav(fetched.audio);
          const audio = wav?.audio ?? fetched.audio;
          await voice.recordings.save(call.sessionId, audio, wav?.seconds ?? event.durationSeconds ?? 0);
          context.logger.info({ agentId: agent.agentId, callSid: call.callSid, recordingId: event.recordingId, bytes: audio.length, ...traceOf(call) }, 'call recording stored');
        } else {
          context.logger.warn({ agentId: agent.agentId, callSid: call.callSid, recordingId: event.recordingId, status: event.status, ...traceOf(call) }, 'the provider made no recording of the call');
        }
        return { status: 200, ...telephony.render([]) };
      });
    },
    reconcileCall: reconcileCallOperation(context, applyCallStatus),
  };
}
