import type { DeliveryStatusEvent } from '@switchboard/sdk';
import type { AgentActor } from '../actors/agent-actor.js';
import { agentEvent, type AgentEvent } from '../delivery/agent-events.js';
import { statusEntry } from '../inbox/entries.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import { regresses, type MessageRecord } from '../store/repositories/messages.js';
import type { Store } from '../store/store.js';
import { personAddress } from '../compliance/contact-policy.js';

/** The repositories a receipt is applied with. */
export type ReceiptStore = Pick<Store, 'db' | 'inbox' | 'messages'>;
import { providerOf, type MessagingContext } from './context.js';
import type { SentMessage } from './recent-sends.js';

/** How a status that is not a provider's receipt is applied (the reconciler's). */
export interface StatusApplication {
  /** The message as the caller read it; the change applies only over its status. */
  readonly read?: MessageRecord;
  /** Why the status is what it is (`unknown`'s reason), kept as the message's error and told with it. */
  readonly reason?: string;
}

/**
 * Applies a provider's receipt in the agent's actor. For a message this process sent and still keeps,
 * nothing is read ({@link applyReceiptOver}); any other message is read first, as {@link applyStatus} does.
 */
export async function applyReceipt(context: MessagingContext, store: ReceiptStore & Pick<Store, 'doNotContact'>, actor: AgentActor, agent: AgentRecord, event: DeliveryStatusEvent): Promise<void> {
  if (event.suppression && event.channel === 'email') await suppress(store, agent, event);
  const kept = await context.recentSends.find(actor, event.externalId);
  if (!kept) {
    await applyStatus(context, store, agent, event);
    return;
  }
  if (await applyReceiptOver(context, store, agent, kept, event)) context.recentSends.update(actor, { ...kept, status: event.status });
  // Gone since (its agent erased).
  else context.recentSends.forget(actor, event.externalId);
}

/**
 * Applies a receipt over a message whose fields are known (kept by the actor that sent it, or read at the
 * edge): its inbox entry is conditional on the stored status being another than the receipt's (so a
 * repeat, or a status another process or the reconciler wrote meanwhile, adds none), and the update
 * never takes the message back to an earlier status (providers do not promise their order: Twilio's
 * receipts may come out of order). Resolves false when nothing was applied: the receipt came out of
 * order, or the message is gone (its agent erased).
 */
export async function applyReceiptOver(context: StatusTelling, store: ReceiptStore, agent: AgentRecord, message: SentMessage, event: DeliveryStatusEvent): Promise<boolean> {
  // Out of order (a `sent` after `delivered`): nothing to store or tell.
  if (regresses(message.status, event.status)) return false;
  const errorCode = event.errorCode ?? null;
  const entry = statusEntry(message, { status: event.status, externalId: event.externalId, cost: event.cost, error: errorCode });
  const [, applied] = await store.db.executeAll([
    store.inbox.appendStatement(entry, { messageStatusChangesTo: { messageId: message.id, status: event.status } }),
    store.messages.applyStatusStatement(agent.agentId, event.externalId, event.status, event.cost, errorCode),
  ]);
  if (applied!.changes === 0) return false;
  // The status read or kept says whether an entry was likely added: the inbox hint is only a hint.
  await told(context, agent, message, event, message.status !== event.status);
  return true;
}

/**
 * Applies a delivery status to the agent's outbound message: the change and its inbox entry in one
 * commit, then the `message.status` event to the agent's callback. Receipts come here, and so do the
 * reconciler's answers and its `unknown`. Resolves whether the stored status changed.
 */
export async function applyStatus(
  context: MessagingContext,
  store: ReceiptStore,
  agent: AgentRecord,
  event: DeliveryStatusEvent,
  application: StatusApplication = {},
): Promise<boolean> {
  // The message is read first: its inbox entry names its recipient and conversation.
  const message = application.read ?? (await store.messages.findOutbound(agent.agentId, event.externalId));
  // A receipt that came out of order (a `sent` after `delivered`) changes nothing; the UPDATE holds to that too.
  if (!message || regresses(message.status, event.status)) return false;
  // One commit: the receipt (a price reaches the usage record through the store, migration 5) and its inbox entry.
  const errorCode = event.errorCode ?? null;
  const { reason } = application;
  const entry = statusEntry(message, { status: event.status, externalId: event.externalId, cost: event.cost, error: errorCode, ...(reason ? { reason } : {}) });
  // A receipt repeating the stored status (a provider's retry) changes nothing the agent must hear again.
  const changed = message.status !== event.status;
  const update = store.messages.applyStatusStatement(agent.agentId, event.externalId, event.status, event.cost, errorCode ?? reason ?? null, application.read?.status);
  // Over a status read before: the entry's statements go first, on the condition the update has too.
  const writes = application.read
    ? [...(changed ? [store.inbox.appendStatement(entry, { messageStatusIs: { messageId: message.id, status: message.status } })] : []), update]
    : [update, ...(changed ? [store.inbox.appendStatement(entry)] : [])];
  const results = await store.db.executeAll(writes);
  const applied = results[application.read ? writes.length - 1 : 0]!;
  if (applied.changes === 0) return false;
  await told(context, agent, message, event, changed, reason);
  return changed;
}

/**
 * A hard bounce or a complaint: the address goes on the agent's do-not-contact list with the event that
 * caused it, so the agent's next email to it is refused (EMAIL_SUPPRESSED) until the operator lifts it.
 */
async function suppress(store: Pick<Store, 'messages' | 'doNotContact'>, agent: AgentRecord, event: DeliveryStatusEvent): Promise<void> {
  const message = await store.messages.findOutbound(agent.agentId, event.externalId);
  if (!message) return;
  const source = event.suppression === 'complaint' ? 'complaint' : 'email-bounce';
  await store.doNotContact.add({ address: personAddress('email', message.to), scope: agent.agentId, source, reason: event.errorCode ?? source, actor: 'provider' });
}

/**
 * What telling the agent of a stored status needs: the metrics' events, the drivers (the provider's name)
 * and the delivery chain (in the agent's actor, the delivery service; at the edge, its orders).
 */
export interface StatusTelling {
  readonly drivers: MessagingContext['drivers'];
  readonly events: MessagingContext['events'];
  readonly delivery: {
    reachable(agent: AgentRecord): boolean;
    /** Resolves once the event is on its way for good (queued, at the edge). */
    notify(agentId: string, event: AgentEvent, agent: AgentRecord): void | Promise<void>;
  };
}

/** After a status is stored: the metrics' event, the inbox hint when it changed, and the `message.status` event to the agent. */
async function told(context: StatusTelling, agent: AgentRecord, message: Pick<MessageRecord, 'id' | 'provider'>, event: DeliveryStatusEvent, changed: boolean, reason?: string): Promise<void> {
  context.events.emit('message', { channel: event.channel, direction: 'outbound', status: event.status, ...(message.provider ? { provider: message.provider } : providerOf(context, event.channel)) });
  if (changed) context.events.emit('inbox', { agentId: agent.agentId });
  if (!context.delivery.reachable(agent)) return;
  await context.delivery.notify(
    agent.agentId,
    agentEvent('message.status', agent.agentId, {
      messageId: message.id,
      channel: event.channel,
      externalId: event.externalId,
      status: event.status,
      cost: event.cost,
      ...(message.provider ? { provider: message.provider } : {}),
      ...(event.errorCode ? { errorCode: event.errorCode } : {}),
      ...(reason ? { reason } : {}),
    }),
    agent,
  );
}
