import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { defineOperation, type AgentOperation } from '../actors/operation.js';
import { requireAgent } from '../agents/operations.js';
import { AGENT_OPERATIONS, type WebhookAnswer } from '../protocol/operations.js';
import { newSession } from './call-operations.js';
import { traceOf } from './call-session.js';
import { applyCallStatus, logNewCall } from './call-status.js';
import { recordedWav } from './recorded-wav.js';
import { CALL_RECORDS, type VoiceContext } from './voice-context.js';

const EMPTY: WebhookAnswer = { status: 200, contentType: 'text/plain', body: '' };

/**
 * What the telephony provider and the gateways holding calls tell an agent: a call coming in, an
 * outbound call answered, a call's status, its recording, a message it took. None needs the mailbox:
 * each starts in a turn that finds the agent and finishes outside it.
 */
export function callWebhooks(context: VoiceContext): AgentOperation[] {
  const { voice } = context;
  return [
    /** A call to the agent's number: verified, then attached to the media WebSocket (or refused quietly when blocked). */
    defineOperation(AGENT_OPERATIONS.incomingCall, {
      needs: CALL_RECORDS,
      async handle({ actor, store }, payload) {
        const agent = requireAgent(actor);
        const request = voice.request(payload);
        if (agent.blockedChannels.includes('voice')) return EMPTY;
        const telephony = voice.telephonyDriver().telephony;
        const event = telephony.parseCallWebhook(request);
        if (!event) return { status: 200, ...telephony.render([]) };
        // Call Control posts a call's every event to this URL until it is answered: only a ringing call is a new one.
        if (event.status !== 'ringing' && telephony.answerCall) {
          if ((await store.calls.get(event.callSid))?.agentId === agent.agentId) await applyCallStatus(context, store, agent, event);
          return { status: 200, ...telephony.render([]) };
        }
        const session = { ...newSession(context, agent, event.from ?? 'unknown', event.to ?? '', {}, { kind: 'conversation' }, 'inbound'), callSid: event.callSid };
        await voice.register(session);
        await logNewCall(store, context.events, session, event.callSid, 'inbound', event.status);
        if (!telephony.answerCall) return voice.answer(session);
        // A provider that takes no instructions in the webhook's answer is told them by a command.
        const statusCallbackUrl = `${context.publicBaseUrl()}/webhooks/${encodeURIComponent(agent.agentId)}/call-status`;
        await telephony.answerCall(event.callSid, voice.answerSteps(session), { statusCallbackUrl });
        return { status: 200, ...telephony.render([]) };
      },
    }),

    /** The provider fetches what an answered outbound call should do. */
    defineOperation(AGENT_OPERATIONS.outboundAnswer, {
      needs: [],
      async handle({ actor }, payload) {
        const agent = requireAgent(actor);
        if (agent.blockedChannels.includes('voice')) return EMPTY;
        const sessionId = new URL(payload.url).searchParams.get('session') ?? '';
        const session = await voice.find(sessionId);
        if (!session || session.agentId !== agent.agentId) throw new SwitchboardError(ErrorCodes.NOT_FOUND, 'No live call session matches this request.');
        return voice.answer(session);
      },
    }),

    /**
     * A call took a message for the agent (a voicemail, or the callee's reply when no one could take
     * the turns): a cluster gateway holding the call hands it here, to the agent's actor, which stores
     * and delivers it as an embedded call does in place.
     */
    defineOperation(AGENT_OPERATIONS.callMessageTaken, {
      needs: [],
      async handle({ actor }, payload) {
        const agent = requireAgent(actor);
        const { session, message } = payload;
        if (session.agentId !== agent.agentId) throw new SwitchboardError(ErrorCodes.BAD_REQUEST, 'The call belongs to another agent.');
        await context.messages.take(session, agent, message);
        return { success: true as const };
      },
    }),

    /** A call status callback: the call log, call-minute usage, and a `call.status` event for the agent. */
    defineOperation(AGENT_OPERATIONS.callStatus, {
      needs: CALL_RECORDS,
      async handle({ actor, store }, payload) {
        const agent = requireAgent(actor);
        const request = voice.request(payload);
        const telephony = voice.telephonyDriver().telephony;
        const event = telephony.parseCallWebhook(request);
        if (event) await applyCallStatus(context, store, agent, event);
        return { status: 200, ...telephony.render([]) };
      },
    }),

    /** The provider's recording of a relay call is ready: downloaded with the driver's credentials and stored with the call. */
    defineOperation(AGENT_OPERATIONS.callRecorded, {
      needs: ['calls'],
      async handle({ actor, store }, payload) {
        const agent = requireAgent(actor);
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
      },
    }),
  ];
}
