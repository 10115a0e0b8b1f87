import type { CallStatusEvent } from '@switchboard/sdk';
import { Continuation } from '../actors/continuation.js';
import { defineOperation, type AgentOperation } from '../actors/operation.js';
import { requireAgent } from '../agents/operations.js';
import { AGENT_OPERATIONS } from '../protocol/operations.js';
import { settle, type Answer } from '../reconcile/settle.js';
import { FINAL_CALL_STATUSES, type CallRecord } from '../store/repositories/calls.js';
import { applyCallStatus } from './call-status.js';
import { CALL_RECORDS, type VoiceContext } from './voice-context.js';

/**
 * `reconcileCall`: asks the provider for the status of a call whose status callbacks stopped before
 * its end (the reconciler's sweep sends it) and applies the answer as a callback; at the bound a call
 * still without a final status is recorded `unknown` with the reason. As `reconcile` for messages.
 */
export function reconcileCallOperation(context: VoiceContext): AgentOperation {
  return defineOperation(AGENT_OPERATIONS.reconcileCall, {
    needs: CALL_RECORDS,
    async handle({ actor, store, tenure }, request) {
      const agent = requireAgent(actor);
      const call = await store.calls.get(request.callSid);
      if (!call || call.agentId !== agent.agentId) return { outcome: 'settled' as const, status: call?.status ?? 'unknown' };
      if (FINAL_CALL_STATUSES.includes(call.status)) return { outcome: 'settled' as const, status: call.status };
      return new Continuation(() =>
        settle({
          record: call,
          boundMs: context.reconcileBoundMs,
          tenure,
          ask: () => ask(call),
          isFinal: (status) => FINAL_CALL_STATUSES.includes(status as CallRecord['status']),
          apply: (event, application) => applyCallStatus(context, store, agent, event, application),
          unknown: { type: 'call-status', callSid: call.callSid, status: 'unknown', durationSeconds: null, cost: null },
          stillReported: (status, bound) => `${provider()} still reported ${status} at the bound of ${bound} after the call began`,
        }),
      );
    },
  });

  function provider(): string {
    try {
      return context.voice.telephonyDriver().manifest.provider;
    } catch {
      return 'the telephony provider';
    }
  }

  async function ask(call: CallRecord): Promise<Answer<CallStatusEvent>> {
    let telephony;
    try {
      telephony = context.voice.telephonyDriver().telephony;
    } catch (err) {
      return { none: `no telephony provider could be asked (${err instanceof Error ? err.message : String(err)}); the last status was ${call.status}` };
    }
    if (!telephony.fetchCall) return { none: `${provider()} sent no final call status, and its API reports none to ask for; the last status was ${call.status}` };
    try {
      const event = await telephony.fetchCall(call.callSid);
      return event ? { event } : { none: `${provider()} had no call ${call.callSid} when asked; the last status was ${call.status}` };
    } catch (err) {
      context.logger.warn({ err, callSid: call.callSid }, 'the telephony provider could not be asked for a call status; asked again later');
      return { none: `${provider()} could not be asked for the call status (${err instanceof Error ? err.message : String(err)}); the last status was ${call.status}` };
    }
  }
}
