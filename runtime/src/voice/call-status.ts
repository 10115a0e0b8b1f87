import type { CallStatusEvent } from '@switchboard/sdk';
import { round4 } from '../billing/tariffs.js';
import { agentEvent } from '../delivery/agent-events.js';
import type { RuntimeEvents } from '../events.js';
import { newId } from '../ids.js';
import { callStatusEntry } from '../inbox/entries.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import type { CallRecord } from '../store/repositories/calls.js';
import { ENDED_STATUSES, endedCallSummary } from './call-reads.js';
import { traceOf, type CallSession } from './call-session.js';
import type { CallStore, VoiceContext } from './voice-context.js';

/** How a status that is not a provider's callback is applied (the reconciler's). */
export interface CallStatusApplication {
  /** The call as the caller read it; the change applies only over its status. */
  readonly read?: CallRecord;
  /** Why the status is `unknown`. */
  readonly reason?: string;
}

/**
 * A new call's log row, with the inbox entry of its start in the same commit; duration and cost come
 * later, from the provider's status callbacks.
 */
export async function logNewCall(store: Pick<CallStore, 'db' | 'calls' | 'inbox'>, events: RuntimeEvents, session: CallSession, callSid: string, direction: 'inbound' | 'outbound', status: string): Promise<void> {
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

/**
 * A call's status as its provider reports it (a status callback, or the reconciler's ask): the call
 * log and its inbox entry in one commit, call-minute usage, the session's end, and a `call.status`
 * event for the agent. With `read`, only over the status read then; `reason` says why a status is
 * `unknown`. Resolves whether the logged status changed.
 */
export async function applyCallStatus(context: VoiceContext, store: CallStore, agent: AgentRecord, event: CallStatusEvent, application: CallStatusApplication = {}): Promise<boolean> {
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
    await context.voice.callEnded(event.callSid);
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
