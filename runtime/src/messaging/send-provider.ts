import pRetry, { AbortError } from 'p-retry';
import { ErrorCodes, SwitchboardError, isNotAccepted, isRetryable, type Driver, type OutboundMessage, type SendResult } from '@switchboard/sdk';
import type { AgentActor } from '../actors/agent-actor.js';
import type { Tenure } from '../tenure.js';
import type { SendResponse } from '../protocol/operations.js';
import type { UsageLedger, Admission } from '../limits/usage-ledger.js';
import { statusEntry } from '../inbox/entries.js';
import { messageDeadLetter } from '../store/repositories/dead-letters.js';
import type { IdempotencySlot } from '../store/repositories/idempotency.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { Store } from '../store/store.js';
import { round4 } from '../billing/tariffs.js';
import { providerOf, type MessagingContext } from './context.js';
import type { Route } from './routing.js';
import { inSpan, rememberSend, SpanKind, tracing } from '../tracing.js';

/**
 * The provider half of a send, after the message is stored: each of the channel's providers in turn,
 * retried with backoff while a retry can help, an ambiguous attempt looked up before it is tried again,
 * and the outcome recorded in one commit (sent, or failed with a send_failed dead letter).
 */

/** The repositories the provider half of a send writes. */
export type DeliveryStore = Pick<Store, 'db' | 'messages' | 'usage' | 'idempotency' | 'inbox' | 'deadLetters'>;

/** The usage an admitted send holds, to settle or give back. */
export interface Metering {
  readonly ledger: UsageLedger;
  readonly admission: Admission;
  readonly usageId: string;
  readonly tariffCost: number;
}

export async function deliverToProvider(
  context: MessagingContext,
  store: DeliveryStore,
  actor: AgentActor,
  message: MessageRecord,
  outbound: OutboundMessage,
  metering: Metering,
  idempotency: IdempotencySlot | undefined,
  tenure: Tenure,
): Promise<SendResponse> {
  const { routes, unreachable } = routesOf(context, actor, message);
  const failures: string[] = unreachable.map((provider) => `${provider}: agent ${message.agentId} holds no sender there`);
  let attempts = 0;
  for (const [index, route] of routes.entries()) {
    const last = index === routes.length - 1;
    const where = { provider: route.provider, agentId: message.agentId, messageId: message.id, channel: message.channel };
    const here = route.from === outbound.from ? outbound : { ...outbound, from: route.from };
    // A send the provider may have taken (a time-out) is looked up there before it is tried again.
    let unsure = false;
    let lost: unknown;
    try {
      const result = await pRetry(
        async () => {
          // A node that lost the agent makes no further attempt: the send stays unsent for the new holder to finish.
          try {
            tenure.assert();
          } catch (err) {
            lost = err;
            throw new AbortError(err as Error);
          }
          if (unsure) {
            const found = await adoptable(route.driver, store, message, here);
            if (found) return found;
          }
          attempts++;
          try {
            return await attemptAt(context, route, message, here, attempts);
          } catch (err) {
            const refused = isNotAccepted(err);
            context.events.emit('providerAttempt', { channel: message.channel, provider: route.provider, outcome: refused ? 'refused' : 'ambiguous' });
            if (!refused) unsure = true;
            // Provably not taken, with another provider to go to: no retry here, the next one is tried now.
            if (refused && !last) throw new AbortError(err as Error);
            throw err;
          }
        },
        {
          retries: context.sendRetry.attempts - 1,
          minTimeout: context.sendRetry.baseDelayMs,
          factor: 2,
          shouldRetry: (err) => isRetryable(err),
          // Logged as it happens, with the provider's own stack, not only as the final answer.
          onFailedAttempt: (err) =>
            context.logger.warn({ ...where, attempt: err.attemptNumber, retriesLeft: err.retriesLeft, err }, 'provider send attempt failed'),
        },
      );
      context.events.emit('providerAttempt', { channel: message.channel, provider: route.provider, outcome: 'accepted' });
      return await recordSent(context, store, actor, message, result, metering, idempotency, route);
    } catch (err) {
      // Stored (and admitted against the limits) already: not "UNAVAILABLE, not acted on", which the
      // gateway would retry at the agent's new node, where the limit counts this send and refuses the
      // retry (429) while the journal sends it all the same. The new node finishes it; its outcome is the
      // Idempotency-Key's answer.
      if (lost) {
        throw new SwitchboardError(
          ErrorCodes.TIMEOUT,
          `This node lost agent ${message.agentId} during send ${message.id}; the node that holds the agent now finishes it. Retry with the same Idempotency-Key for its outcome.`,
          { retryable: true, cause: lost },
        );
      }
      failures.push(`${route.provider}: ${err instanceof Error ? err.message : String(err)}`);
      // Only a send no provider can have taken goes elsewhere; an ambiguous one ends here, never sent twice.
      if (last || !isNotAccepted(err)) break;
      const next = routes[index + 1]!.provider;
      context.logger.warn({ ...where, next, err }, 'the provider did not take the message; it goes to the next provider');
      context.events.emit('providerFailover', { channel: message.channel, from: route.provider, to: next });
    }
  }
  return failSend(context, store, message, metering, idempotency, attempts, failures);
}

/** One provider call, in its circuit, bounded by the send time-out, traced when tracing is on. */
function attemptAt(context: MessagingContext, route: Route, message: MessageRecord, outbound: OutboundMessage, attempt: number): Promise<SendResult> {
  const send = () => withTimeout(route.driver.send!(outbound), context.sendRetry.timeoutMs, route.provider);
  if (!tracing.on) return context.router.attempt(route.provider, send);
  const attributes = { 'switchboard.provider': route.provider, 'switchboard.channel': message.channel, 'switchboard.message_id': message.id, 'switchboard.attempt': attempt };
  return inSpan(`provider send`, SpanKind.CLIENT, attributes, (span) => (rememberSend(message.id, span), context.router.attempt(route.provider, send)));
}

/**
 * After an attempt that may have reached the provider, what it holds of this send: a message between
 * the same addresses with the same body, created since the send was stored, that no message of ours
 * claims. Undefined when it has none, or cannot list its messages (then the send is tried again there).
 */
async function adoptable(driver: Driver, store: DeliveryStore, message: MessageRecord, outbound: OutboundMessage): Promise<SendResult | undefined> {
  if (!driver.findSent) return undefined;
  const found = await driver.findSent(outbound, new Date(message.createdAt)).catch(() => []);
  for (const result of found) if (!(await store.messages.findOutbound(message.agentId, result.externalId))) return result;
  return undefined;
}

/** Where a stored send may go: its channel's providers in order, each with the agent's sender there. */
export function routesOf(context: MessagingContext, actor: AgentActor, message: MessageRecord): { routes: Route[]; unreachable: string[] } {
  const held = actor.state?.channels.find((c) => c.channel === message.channel) ?? { channel: message.channel, address: message.from, pool: '' };
  return context.router.routesFor(held, message.to);
}

/** No provider took the send: the usage goes back, it is stored failed with a send_failed dead letter, and PROVIDER_ERROR answers. */
async function failSend(
  context: MessagingContext,
  store: DeliveryStore,
  message: MessageRecord,
  metering: Metering,
  idempotency: IdempotencySlot | undefined,
  attempts: number,
  failures: readonly string[],
): Promise<never> {
  const reason = failures.join('; ') || `no ${message.channel} provider is configured`;
  context.logger.error({ agentId: message.agentId, messageId: message.id, channel: message.channel, attempts, reason }, 'provider refused the message; it is a send_failed dead letter');
  metering.ledger.release(metering.admission);
  await store.db.transaction(async (tx) => {
    await store.usage.delete(metering.usageId, tx);
    await store.messages.markFailed(message.id, reason, tx);
    await store.inbox.append(tx, statusEntry(message, { status: 'failed', error: reason }));
    await store.deadLetters.insert(messageDeadLetter(message, 'send_failed', attempts, reason), tx);
    if (idempotency) await store.idempotency.release(message.id, tx);
  });
  context.events.emit('message', { channel: message.channel, direction: 'outbound', status: 'failed', ...providerOf(context, message.channel) });
  context.events.emit('inbox', { agentId: message.agentId });
  context.events.emit('deadLetter', { agentId: message.agentId, reason: 'send_failed' });
  throw new SwitchboardError(ErrorCodes.PROVIDER_ERROR, `The provider did not take the message after ${attempts} attempt(s): ${reason}`);
}

/** The one commit after the provider call: its answer, the usage it settles and the idempotent replay. */
export async function recordSent(
  context: MessagingContext,
  store: DeliveryStore,
  actor: AgentActor,
  message: MessageRecord,
  result: SendResult,
  metering: Metering,
  idempotency: IdempotencySlot | undefined,
  via: Pick<Route, 'provider' | 'from'>,
): Promise<SendResponse> {
  const cost = result.cost ?? metering.tariffCost;
  const response: SendResponse = {
    success: true,
    messageId: message.id,
    externalId: result.externalId,
    status: result.status,
    channel: message.channel,
    from: via.from,
    to: message.to,
    cost: round4(cost),
    provider: via.provider,
  };
  const sent = { ...message, from: via.from, provider: via.provider };
  const stored = store.db.executeAll([
    store.messages.markSentStatement(message.id, result, via),
    // An entry only when the provider's answer changes the status (a provider that only queued it adds nothing).
    ...(result.status === message.status ? [] : [store.inbox.appendStatement(statusEntry(sent, { status: result.status, externalId: result.externalId, cost: result.cost }))]),
    store.usage.settleStatement(metering.usageId, result.externalId, result.segments, result.cost),
    ...(idempotency ? [store.idempotency.recordStatement(idempotency.scope, idempotency.key, { requestHash: idempotency.requestHash, status: 200, body: response })] : []),
  ]);
  // Kept from now on: a receipt that comes before this commit (a provider may post one within
  // milliseconds) waits for it, where a read would not find the provider's id yet and drop it.
  context.recentSends.remember(actor, { ...sent, externalId: result.externalId, status: result.status }, stored);
  await stored;
  context.events.emit('usage', { channel: message.channel, action: 'message', cost });
  context.events.emit('message', { channel: message.channel, direction: 'outbound', status: result.status, provider: via.provider });
  if (result.status !== message.status) context.events.emit('inbox', { agentId: message.agentId });
  return response;
}

/** A provider call that takes too long counts as a retryable failure; the message id is its idempotency key. */
function withTimeout<T>(work: Promise<T>, ms: number, provider: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SwitchboardError(ErrorCodes.PROVIDER_ERROR, `${provider} did not answer within ${ms} ms`, { retryable: true })),
      ms,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
