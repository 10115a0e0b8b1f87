import type { DeliveryStatusEvent, Driver } from '@switchboard/sdk';
import { defineOperation, type AgentOperation } from '../actors/operation.js';
import { Continuation } from '../actors/continuation.js';
import { requireAgent } from '../agents/operations.js';
import { AGENT_OPERATIONS } from '../protocol/operations.js';
import { settle, type Answer } from '../reconcile/settle.js';
import { UNSETTLED_STATUSES, type MessageRecord } from '../store/repositories/messages.js';
import { driverOf, type MessagingContext } from './context.js';
import { applyStatus } from './receipts.js';

/**
 * `reconcile`: asks the provider for the status of an outbound message whose receipts stopped before
 * a final one (the reconciler's sweep sends it), and applies the answer as a receipt. At the bound
 * (`reconcileBoundMs` after the send) a message still without a final status is recorded `unknown`
 * with the reason. The ask runs outside the mailbox; each write applies only over the status read,
 * so a receipt that comes meanwhile wins.
 */
export function reconcileOperation(context: MessagingContext): AgentOperation {
  return defineOperation(AGENT_OPERATIONS.reconcile, {
    needs: ['db', 'inbox', 'messages'],
    async handle({ actor, store, tenure }, request) {
      const agent = requireAgent(actor);
      const message = await store.messages.get(request.messageId);
      if (!message || message.agentId !== agent.agentId || message.direction !== 'outbound' || message.externalId === null) {
        return { outcome: 'settled' as const, status: message?.status ?? 'unknown' };
      }
      if (!UNSETTLED_STATUSES.includes(message.status)) return { outcome: 'settled' as const, status: message.status };
      return new Continuation(() =>
        settle({
          record: message,
          boundMs: context.reconcileBoundMs,
          tenure,
          ask: () => ask(driverOf(context, message), message),
          isFinal: (status) => !UNSETTLED_STATUSES.includes(status as MessageRecord['status']),
          apply: (event, application) => applyStatus(context, store, agent, event, application),
          unknown: { type: 'status', channel: message.channel, externalId: message.externalId!, status: 'unknown', cost: null },
          stillReported: (status, bound) => `${providerOf(context, message)} still reported ${status} at the bound of ${bound} after the send`,
        }),
      );
    },
  });

  async function ask(driver: Driver | undefined, message: MessageRecord): Promise<Answer<DeliveryStatusEvent>> {
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
  return driverOf(context, message)?.manifest.provider ?? message.channel;
}
