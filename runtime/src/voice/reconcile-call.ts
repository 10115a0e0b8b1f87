import type { CallStatusEvent } from '@switchboard/sdk';
import type { AgentOperation } from '../actors/actor-system.js';
import { Continuation } from '../actors/continuation.js';
import { requireAgent } from '../agents/operations.js';
import { settle, type Answer } from '../reconcile/settle.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import { FINAL_CALL_STATUSES, type CallRecord } from '../store/repositories/calls.js';
import type { Store } from '../store/store.js';
import type { VoiceContext } from './operations.js';

/** How a status that is not a provider's callback is applied (the reconciler's). */
export interface CallStatusApplication {
  /** The call as the caller read it; the change applies only over its status. */
  readonly read?: CallRecord;
  /** Why the status is `unknown`. */
  readonly reason?: string;
}

/** Applies a call's status the way its status callbacks are (voice/operations.ts). */
export type ApplyCallStatus = (store: Store, agent: AgentRecord, event: CallStatusEvent, application?: CallStatusApplication) => Promise<boolean>;

/**
 * `reconcileCall`: asks the provider for the status of a call whose status callbacks stopped before
 * its end (the reconciler's sweep sends it) and applies the answer as a callback; at the bound a call
 * still without a final status is recorded `unknown` with the reason. As `reconcile` for messages.
 */
export function reconcileCallOperation(context: VoiceContext, apply: ApplyCallStatus): AgentOperation<'reconcileCall'> {
  return async ({ actor, store, tenure }, request) => {
    const agent = requireAgent(actor);
    const call = await store.calls.get(request.callSid);
    if (!call || call.agentId !== agent.agentId) return { outcome: 'settled', status: call?.status ?? 'unknown' };
    if (FINAL_CALL_STATUSES.includes(call.status)) return { outcome: 'settled', status: call.status };
    return new Continuation(() =>
      settle({
        record: call,
        boundMs: context.reconcileBoundMs,
        tenure,
        ask: () => ask(call),
        isFinal: (status) => FINAL_CALL_STATUSES.includes(status as CallRecord['status']),
        apply: (event, application) => apply(store, agent, event, application),
        unknown: { type: 'call-status', callSid: call.callSid, status: 'unknown', durationSeconds: null, cost: null },
        stillReported: (status, bound) => `${provider()} still reported ${status} at the bound of ${bound} after the call began`,
      }),
    );
  };

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
