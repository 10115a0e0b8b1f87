import pRetry, { AbortError } from 'p-retry';
import { ErrorCodes, SwitchboardError, countSegments, hasErrorCode, isNotAccepted, isRetryable, type Channel, type Driver, type OutboundMessage, type SendResult } from '@switchboard/sdk';
import { Continuation } from '../actors/continuation.js';
import { defineOperation, type AgentOperation } from '../actors/operation.js';
import type { AgentActor } from '../actors/agent-actor.js';
import type { Tenure } from '../tenure.js';
import { AGENT_OPERATIONS, type OperationRequest, type SendResponse } from '../protocol/operations.js';
import { replyTarget, type Addressed } from '../conversations/reply-target.js';
import { requireOpenWindow } from '../conversations/service-window.js';
import { UsageLedger, type Admission } from '../limits/usage-ledger.js';
import { requireAgent } from '../agents/operations.js';
import { newId } from '../ids.js';
import { statusEntry } from '../inbox/entries.js';
import { messageDeadLetter } from '../store/repositories/dead-letters.js';
import { keyInUse, type IdempotencySlot } from '../store/repositories/idempotency.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import { contactSettingsOf, personAddress } from '../compliance/contact-policy.js';
import { unsubscribeHeaders, unsubscribeToken } from '../compliance/unsubscribe-link.js';
import type { UsageRecord } from '../store/repositories/usage.js';
import type { Store } from '../store/store.js';
import { round4 } from '../billing/tariffs.js';
import { checkRecipient } from './addresses.js';
import { contentOf } from './send-content.js';
import { providerOf, type MessagingContext } from './context.js';
import type { Route } from './routing.js';
import { inSpan, rememberSend, SpanKind, tracing } from '../tracing.js';

/**
 * `send`: checks run in the agent's mailbox (channel held, not blocked, recipient valid and not
 * opted out, limits admit the cost) and the message and its usage record are stored; the provider
 * call runs after, outside the mailbox, retried with backoff when the provider says a retry can help.
 * A final failure gives the usage back, is stored, becomes a `send_failed` dead letter and answers
 * PROVIDER_ERROR.
 */
/** The repositories a send and its resumption see. */
const SEND_NEEDS = ['db', 'messages', 'usage', 'idempotency', 'inbox', 'deadLetters', 'tenures', 'conversations'] as const;
type SendStore = Pick<Store, (typeof SEND_NEEDS)[number]>;

/** Where a send goes: its own channel and recipient, or those of the conversation it names. */
async function addressedOf(store: SendStore, agentId: string, request: OperationRequest<'send'>): Promise<Addressed> {
  const channel = request.channel === 'voice' ? undefined : request.channel;
  if (request.conversationId !== undefined) return replyTarget(store, agentId, request.conversationId, channel, request.subject);
  if (!channel || request.to === undefined) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'Name `channel` and `to`, or a `conversationId` to reply in.');
  return { channel, to: request.to, subject: request.subject, thread: undefined };
}

export function sendOperation(context: MessagingContext): AgentOperation {
  return defineOperation(AGENT_OPERATIONS.send, {
    needs: SEND_NEEDS,
    async handle({ actor, store, tenure, clock }, request) {
      const agent = requireAgent(actor);
      if (request.channel === 'voice') throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'Voice is not a message channel; use /api/v1/make-call or /api/v1/send-voice-message.');
      const { channel, to, subject, thread } = await addressedOf(store, agent.agentId, request);
      const held = agent.channels.find((c) => c.channel === channel);
      if (!held) throw new SwitchboardError(ErrorCodes.CHANNEL_NOT_PROVISIONED, `Agent ${agent.agentId} has no ${channel} channel; provision it first.`);
      if (agent.blockedChannels.includes(channel)) throw new SwitchboardError(ErrorCodes.CHANNEL_BLOCKED, `The ${channel} channel of agent ${agent.agentId} is blocked by the operator.`);
      checkRecipient(channel, to);
      if (channel === 'email' && !subject) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'subject is required for email.');
      const { body, template } = contentOf(channel, request);
      await context.policy.check({ agentId: agent.agentId, channel, to, ...(request.marketing ? { marketing: true } : {}) }, contactSettingsOf(agent));
      // A free-form WhatsApp message needs the person's last message within 24 hours; a template does not.
      if (channel === 'whatsapp' && !template) await requireOpenWindow(store, agent.agentId, to, clock.now());
      const driver = context.drivers.require(channel);
      const now = new Date().toISOString();
      const id = newId('msg');
      const segments = channel === 'sms' ? countSegments(body).segments : 1;
      const message: MessageRecord = {
        id,
        agentId: agent.agentId,
        channel,
        direction: 'outbound',
        from: held.address,
        to,
        subject: subject ?? null,
        body,
        html: request.html ?? null,
        mediaUrls: request.mediaUrls ?? [],
        externalId: null,
        status: 'queued',
        segments,
        cost: null,
        error: null,
        delivery: 'done',
        createdAt: now,
        updatedAt: now,
        ...(thread ? { inReplyTo: thread.inReplyTo, references: thread.references } : {}),
        ...(template ? { template } : {}),
      };
      const outbound = outboundOf(context, message, agent);
      const cost = context.tariffs.cost(channel, segments, to, driver.estimateCost?.(outbound, segments));
      const ledger = await context.limiter.ledger(actor);
      const admission = await context.limiter.admit(actor, cost);
      const usage: UsageRecord = {
        id: usageIdOf(id),
        agentId: agent.agentId,
        channel,
        action: 'message',
        quantity: segments,
        providerCost: null,
        tariffCost: cost,
        externalId: null,
        createdAt: now,
      };
      const metering: Metering = { ledger, admission, usageId: usage.id, tariffCost: cost };
      // Only the in-memory checks and the admission hold the mailbox; the rest runs outside it.
      // SMS opt-outs are checked by the INSERT itself: one commit before the provider call, no read.
      // An Idempotency-Key is claimed in the same commit, so a repeat while the send is in flight waits.
      const { idempotency } = request;
      // Its inbox entry (queued) is in the same commit, and only if the message is stored.
      const writes = [
        ...(channel === 'sms'
          ? [store.messages.insertUnlessOptedOutStatement(message, tenure), store.usage.insertForMessageStatement(usage, message.id)]
          : [store.messages.insertStatement(message, tenure), store.usage.insertForMessageStatement(usage, message.id)]),
        ...(idempotency ? [store.idempotency.claimStatement(idempotency, id)] : []),
        store.inbox.appendStatement(statusEntry(message, { status: 'queued' })),
      ];
      return new Continuation(async () => {
        try {
          const results = await store.db.executeAll(writes);
          const stored = results[0];
          const claimed = idempotency ? results[2] : undefined;
          if (stored!.changes === 0) {
            // In a cluster the INSERT is fenced: another node took the agent over since this one admitted the send.
            if (!(await store.tenures.isCurrent(tenure))) {
              throw new SwitchboardError(ErrorCodes.UNAVAILABLE, `Agent ${agent.agentId} moved to another node; retry.`, { retryable: true });
            }
            throw new SwitchboardError(ErrorCodes.RECIPIENT_OPTED_OUT, `${to} replied STOP to ${held.address}; it can be texted again after it sends START.`);
          }
          if (claimed && claimed.changes === 0) {
            // The same key through another gateway at the same moment: that request sends, this one does not.
            await store.db.transaction(async (tx) => {
              await store.usage.delete(usage.id, tx);
              await store.inbox.deleteForMessage(id, tx);
              await store.messages.delete(id, tx);
            });
            throw keyInUse();
          }
        } catch (err) {
          ledger.release(admission);
          throw err;
        }
        // Its `queued` entry is committed.
        context.events.emit('inbox', { agentId: agent.agentId });
        // Stored, so journaled too: a node that dies from here on leaves the send to another.
        const done = await context.outbox.begin({ agentId: agent.agentId, messageId: id });
        // Its outcome is stored unless it threw other than as a final refusal (a node that lost the agent
        // leaves it unsent): then its journal entry stays, for the agent's actor to finish it wherever it runs.
        let settled = false;
        try {
          const response = await deliverToProvider(context, store, actor, message, outbound, metering, idempotency, tenure);
          settled = true;
          return response;
        } catch (err) {
          settled = hasErrorCode(err, ErrorCodes.PROVIDER_ERROR);
          throw err;
        } finally {
          done(settled);
        }
      });
    },
  });
}

/** A send's usage record shares its message's ULID, so whoever finishes the send finds it. */
function usageIdOf(messageId: string): string {
  return `use_${messageId.slice(messageId.indexOf('_') + 1)}`;
}

/**
 * `resumeSend`: finishes a send whose node died after storing it (a cluster's journaled send, run on
 * whichever node holds the agent now). Nothing is done when the send is still running on this node or
 * already has its outcome. A provider that deduplicates by idempotency key is simply sent to again
 * (the message id is the key); for one that does not, a message the provider already holds with the
 * same addresses and body, and no other message of ours claims, is adopted instead of sent twice.
 */
export function resumeSendOperation(context: MessagingContext): AgentOperation {
  return defineOperation(AGENT_OPERATIONS.resumeSend, {
    needs: SEND_NEEDS,
    async handle({ actor, store, tenure }, request) {
      if (context.outbox.has(request.messageId)) return { outcome: 'in_flight' as const };
      const message = await store.messages.unsent(request.messageId);
      if (!message || message.agentId !== request.agentId) return { outcome: 'settled' as const };
      const usageId = usageIdOf(message.id);
      const tariffCost = (await store.usage.tariffCostOf(usageId)) ?? 0;
      const idempotency = await store.idempotency.claimOf(message.id);
      const ledger = await context.limiter.ledger(actor);
      const metering: Metering = { ledger, admission: { cost: tariffCost, starts: UsageLedger.windowStarts(Date.parse(message.createdAt)) }, usageId, tariffCost };
      const outbound = outboundOf(context, message, actor.state ?? undefined);
      // What asked is the journal (a work item, or the start-up sweep): if this node dies too, it asks again.
      const done = context.outbox.hold(request.messageId);
      return new Continuation(async () => {
        try {
          tenure.assert();
          // The first node may have sent it at any of the channel's providers before it died.
          for (const route of routesOf(context, actor, message).routes) {
            const here = route.from === outbound.from ? outbound : { ...outbound, from: route.from };
            const found = route.driver.findSent ? await route.driver.findSent(here, new Date(message.createdAt)) : [];
            for (const result of found) {
              if (await store.messages.findOutbound(message.agentId, result.externalId)) continue;
              await recordSent(context, store, actor, message, result, metering, idempotency, route);
              return { outcome: 'adopted' as const };
            }
          }
          // A final refusal is stored as the first node would have (failed, a send_failed dead letter).
          return await deliverToProvider(context, store, actor, message, outbound, metering, idempotency, tenure).then(
            () => ({ outcome: 'sent' as const }),
            (err: unknown) => {
              if (hasErrorCode(err, ErrorCodes.PROVIDER_ERROR)) return { outcome: 'failed' as const };
              throw err;
            },
          );
        } finally {
          done();
        }
      });
    },
  });
}

/** What the provider is asked to send for a stored outbound message (by `agent`, when it is known: its email headers). */
function outboundOf(context: MessagingContext, message: MessageRecord, agent?: AgentRecord): OutboundMessage {
  return {
    channel: message.channel,
    from: message.from,
    to: message.to,
    body: message.body,
    ...(message.subject === null ? {} : { subject: message.subject }),
    ...(message.html === null ? {} : { html: message.html }),
    ...(message.mediaUrls.length === 0 ? {} : { mediaUrls: message.mediaUrls }),
    statusCallbackUrl: statusCallbackUrl(context, message.agentId, message.channel),
    idempotencyKey: message.id,
    ...(message.inReplyTo ? { inReplyTo: message.inReplyTo, references: message.references ?? [message.inReplyTo] } : {}),
    ...(message.template ? { template: message.template } : {}),
    ...(message.channel === 'email' && agent?.listUnsubscribe
      ? { headers: unsubscribeHeaders(context.publicBaseUrl(), unsubscribeToken(context.box, agent, personAddress('email', message.to))) }
      : {}),
  };
}

function statusCallbackUrl(context: MessagingContext, agentId: string, channel: Channel): string {
  return `${context.publicBaseUrl()}/webhooks/${encodeURIComponent(agentId)}/${channel}`;
}

/** The usage an admitted send holds, to settle or give back. */
interface Metering {
  readonly ledger: UsageLedger;
  readonly admission: Admission;
  readonly usageId: string;
  readonly tariffCost: number;
}

async function deliverToProvider(
  context: MessagingContext,
  store: SendStore,
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
async function adoptable(driver: Driver, store: SendStore, message: MessageRecord, outbound: OutboundMessage): Promise<SendResult | undefined> {
  if (!driver.findSent) return undefined;
  const found = await driver.findSent(outbound, new Date(message.createdAt)).catch(() => []);
  for (const result of found) if (!(await store.messages.findOutbound(message.agentId, result.externalId))) return result;
  return undefined;
}

/** Where a stored send may go: its channel's providers in order, each with the agent's sender there. */
function routesOf(context: MessagingContext, actor: AgentActor, message: MessageRecord): { routes: Route[]; unreachable: string[] } {
  const held = actor.state?.channels.find((c) => c.channel === message.channel) ?? { channel: message.channel, address: message.from, pool: '' };
  return context.router.routesFor(held, message.to);
}

/** No provider took the send: the usage goes back, it is stored failed with a send_failed dead letter, and PROVIDER_ERROR answers. */
async function failSend(
  context: MessagingContext,
  store: SendStore,
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
async function recordSent(
  context: MessagingContext,
  store: SendStore,
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
