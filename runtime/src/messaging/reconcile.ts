import type { DeliveryStatusEvent, Driver } from '@switchboard/sdk';
import type { AgentOperation } from '../actors/actor-system.js';
import { Continuation } from '../actors/continuation.js';
import { requireAgent } from '../agents/operations.js';
import { UNSETTLED_STATUSES, type MessageRecord } from '../store/repositories/messages.js';
import type { MessagingContext } from './context.js';
import { applyStatus } from './receipts.js';

/** What one ask of the provider came to. */
type Answer = { readonly event: DeliveryStatusEvent } | { readonly none: string };

/**
 * `reconcile`: asks the provider for the status of an outbound message whose receipts stopped before
 * a final one (the reconciler's sweep sends it), and applies the answer as a receipt. At the bound
 * (`reconcileBoundMs` after the send) a message still without a final status is recorded `unknown`
 * with the reason. The ask runs outside the mailbox; each write applies only over the status read,
 * so a receipt that comes meanwhile wins.
 */
export function reconcileOperation(context: MessagingContext): AgentOperation<'reconcile'> {
  return async ({ actor, store, tenure }, request) => {
    const agent = requireAgent(actor);
    const message = await store.messages.get(request.messageId);
    if (!message || message.agentId !== agent.agentId || message.direction !== 'outbound' || message.externalId === null) {
      return { outcome: 'settled', status: message?.status ?? 'unknown' };
    }
    if (!UNSETTLED_STATUSES.includes(message.status)) return { outcome: 'settled', status: message.status };
    return new Continuation(async () => {
      const answer = await ask(context.drivers.for(message.channel), message);
      tenure.assert();
      if ('event' in answer && answer.event.status !== message.status) {
        await applyStatus(context, store, agent, answer.event, { read: message });
        if (!UNSETTLED_STATUSES.includes(answer.event.status)) return { outcome: 'final' as const, status: answer.event.status };
      }
      const status = 'event' in answer ? answer.event.status : message.status;
      if (Date.now() < Date.parse(message.createdAt) + context.reconcileBoundMs) return { outcome: 'pending' as const, status };
      const reason = 'event' in answer ? `${providerOf(context, message)} still reported ${status} at the bound of ${duration(context.reconcileBoundMs)} after the send` : answer.none;
      const unknown: DeliveryStatusEvent = { type: 'status', channel: message.channel, externalId: message.externalId!, status: 'unknown', cost: null };
      // Over the status just applied, if any: the one stored now.
      const read = 'event' in answer && answer.event.status !== message.status ? { ...message, status: answer.event.status } : message;
      await applyStatus(context, store, agent, unknown, { read, reason });
      return { outcome: 'unknown' as const, status: 'unknown' };
    });
  };

  async function ask(driver: Driver | undefined, message: MessageRecord): Promise<Answer> {
    const provider = providerOf(context, message);
    if (!driver?.fetchStatus) return { none: `${provider} sent no final status, and its API reports none to ask for; the last status was ${message.status}` };
    try {
      const event = await driver.fetchStatus({ channel: message.channel, externalId: message.externalId!, from: message.from, to: message.to, sentAt: new Date(message.createdAt) });
      return event ? { event } : { none: `${provider} had no status for ${message.externalId} when asked; the last status was ${message.status}` };
    } catch (err) {
      context.logger.warn({ err, messageId: message.id, provider }, 'a provider could not be asked for a message status; asked again later');
      return { none: `${provider} could not be asked for the status (${err instanceof Error ? err.message : String(err)}); the last status was ${message.status}` };
    }
  }
}

function providerOf(context: MessagingContext, message: MessageRecord): string {
  return context.drivers.for(message.channel)?.manifest.provider ?? message.channel;
}

/** `90 s`, `15 min`, `24 h`: how the bound reads in a reason. */
export function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}
