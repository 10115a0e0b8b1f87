import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { AgentActor } from '../actors/agent-actor.js';
import { Continuation } from '../actors/continuation.js';
import { defineOperation, type AgentOperation, type OperationContext } from '../actors/operation.js';
import { requireAgent } from '../agents/operations.js';
import { newId } from '../ids.js';
import { AGENT_OPERATIONS, type CallPurpose, type MakeCallRequest } from '../protocol/operations.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import { ENDED_STATUSES } from './call-reads.js';
import { newSessionId, traceOf, type CallSession } from './call-session.js';
import { logNewCall } from './call-status.js';
import { CALL_RECORDS, type CallStore, type VoiceContext } from './voice-context.js';
import { contactSettingsOf } from '../compliance/contact-policy.js';

/** The agent's phone number ('' when it holds no voice channel; placing a call then refuses it). */
export function voiceAddress(agent: AgentRecord): string {
  return agent.channels.find((c) => c.channel === 'voice')?.address ?? '';
}

/** A new call session of the agent, what the request leaves out taken from the agent. */
export function newSession(context: VoiceContext, agent: AgentRecord, from: string, to: string, request: Partial<MakeCallRequest>, purpose: CallPurpose, direction: 'inbound' | 'outbound'): CallSession {
  return {
    sessionId: newSessionId(),
    agentId: agent.agentId,
    callSid: null,
    direction,
    mode: request.mode ?? context.voice.defaultMode,
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

/**
 * Outbound calls: placing one (a conversation, a secretary call, a voice message), transferring and
 * ending a live one. Checks and admission run in the mailbox; the provider's calls run outside it,
 * each after the tenure is asserted again.
 */
export function callOperations(context: VoiceContext): AgentOperation[] {
  const { voice } = context;

  /** Checks an outbound call of the agent and admits it under its limits (actions, spend, calls per day to the number). */
  async function place(actor: AgentActor, store: Pick<CallStore, 'calls'>, agent: AgentRecord, session: CallSession) {
    const held = agent.channels.find((c) => c.channel === 'voice');
    if (!held) throw new SwitchboardError(ErrorCodes.CHANNEL_NOT_PROVISIONED, `Agent ${agent.agentId} has no voice channel; provision it first.`);
    if (agent.blockedChannels.includes('voice')) throw new SwitchboardError(ErrorCodes.CHANNEL_BLOCKED, `The voice channel of agent ${agent.agentId} is blocked by the operator.`);
    if (!/^\+[1-9][0-9]{6,14}$/.test(session.to)) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'to must be an E.164 phone number such as +14155550100.');
    await context.policy.check({ agentId: agent.agentId, channel: 'voice', to: session.to, call: true }, contactSettingsOf(agent));
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

  async function dial(store: CallStore, agent: AgentRecord, session: CallSession) {
    const base = context.publicBaseUrl();
    const agentPath = `${base}/webhooks/${encodeURIComponent(agent.agentId)}`;
    const placed = await voice.telephonyDriver().telephony.placeCall({
      from: session.from,
      to: session.to,
      answerUrl: `${agentPath}/outbound-voice?session=${encodeURIComponent(session.sessionId)}`,
      statusCallbackUrl: `${agentPath}/call-status`,
      steps: voice.answerSteps(session),
    });
    voice.bind(session, placed.callSid);
    await logNewCall(store, context.events, session, placed.callSid, 'outbound', placed.status);
    context.logger.info({ agentId: agent.agentId, sessionId: session.sessionId, callSid: placed.callSid, ...traceOf(session) }, 'call placed');
    return placed;
  }

  /** Admits, registers and places a live call; the provider call runs outside the mailbox. */
  async function call<E extends object>({ actor, store, tenure }: OperationContext<(typeof CALL_RECORDS)[number], true>, agent: AgentRecord, session: CallSession, extra: E) {
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

  return [
    /** Synthesises the text, keeps it as a WAV under an unguessable URL, and places a call that plays it. */
    defineOperation(AGENT_OPERATIONS.sendVoiceMessage, {
      needs: CALL_RECORDS,
      async handle({ actor, store, tenure }, payload) {
        const agent = requireAgent(actor);
        const { to, text, voice: voiceId } = payload;
        const from = voiceAddress(agent);
        const tts = voice.tts();
        const placeholder = newSession(context, agent, from, to, {}, { kind: 'voice-message', audioUrl: '' }, 'outbound');
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
    }),

    defineOperation(AGENT_OPERATIONS.makeCall, {
      needs: CALL_RECORDS,
      async handle(operation, request) {
        const agent = requireAgent(operation.actor);
        const session = newSession(context, agent, voiceAddress(agent), request.to, request, { kind: 'conversation' }, 'outbound');
        return call(operation, agent, session, {});
      },
    }),

    defineOperation(AGENT_OPERATIONS.callOnBehalf, {
      needs: CALL_RECORDS,
      async handle(operation, request) {
        const agent = requireAgent(operation.actor);
        const purpose: CallPurpose = {
          kind: 'secretary',
          requesterPhone: request.requesterPhone,
          ...(request.targetName ? { targetName: request.targetName } : {}),
          ...(request.requesterName ? { requesterName: request.requesterName } : {}),
          ...(request.message ? { message: request.message } : {}),
        };
        const session = newSession(context, agent, voiceAddress(agent), request.target, { mode: 'relay', ...(request.traceparent ? { traceparent: request.traceparent } : {}) }, purpose, 'outbound');
        return call(operation, agent, session, { bridge: 'available' as const });
      },
    }),

    defineOperation(AGENT_OPERATIONS.transferCall, {
      needs: ['calls', 'usage'],
      async handle({ actor, store }, payload) {
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
    }),

    defineOperation(AGENT_OPERATIONS.hangUpCall, {
      needs: ['calls'],
      async handle({ actor, store }, { callSid }) {
        const agent = requireAgent(actor);
        const call = await store.calls.get(callSid);
        if (!call || call.agentId !== agent.agentId) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `No call ${callSid} for agent ${agent.agentId}.`);
        if (ENDED_STATUSES.includes(call.status)) throw new SwitchboardError(ErrorCodes.CONFLICT, `Call ${callSid} has ended (${call.status}).`);
        return new Continuation(async () => {
          await voice.telephonyDriver().telephony.updateCall(callSid, [{ kind: 'hangup' }]);
          return { success: true as const, callSid, status: 'hung-up' as const };
        });
      },
    }),
  ];
}
