import pRetry from 'p-retry';
import { ErrorCodes, SwitchboardError, countSegments, isRetryable, type Channel, type OutboundMessage, type SendResult } from '@switchboard/sdk';
import { Continuation } from '../actors/continuation.js';
import type { AgentOperation } from '../actors/actor-system.js';
import type { SendResponse } from '../agents/catalogue.js';
import type { Admission, UsageLedger } from '../limits/usage-ledger.js';
import { requireAgent } from '../agents/operations.js';
import { newId } from '../ids.js';
import { messageDeadLetter } from '../store/repositories/dead-letters.js';
import type { IdempotencySlot } from '../store/repositories/idempotency.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { UsageRecord } from '../store/repositories/usage.js';
import type { Store } from '../store/store.js';
import { round4 } from '../billing/tariffs.js';
import { checkRecipient } from './addresses.js';
import type { MessagingContext } from './context.js';

/**
 * `send`: checks run in the agent's mailbox (channel held, not blocked, recipient valid and not
 * opted out, limits admit the cost) and the message and its usage record are stored; the provider
 * call runs after, outside the mailbox, retried with backoff when the provider says a retry can help.
 * A final failure gives the usage back, is stored, becomes a `send_failed` dead letter and answers
 * PROVIDER_ERROR.
 */
export function sendOperation(context: MessagingContext): AgentOperation<'send'> {
  return async ({ actor, store }, request) => {
    const agent = requireAgent(actor);
    const { channel } = request;
    if (channel === 'voice') throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'Voice is not a message channel; use /api/v1/make-call or /api/v1/send-voice-message.');
    const held = agent.channels.find((c) => c.channel === channel);
    if (!held) throw new SwitchboardError(ErrorCodes.CHANNEL_NOT_PROVISIONED, `Agent ${agent.agentId} has no ${channel} channel; provision it first.`);
    if (agent.blockedChannels.includes(channel)) throw new SwitchboardError(ErrorCodes.CHANNEL_BLOCKED, `The ${channel} channel of agent ${agent.agentId} is blocked by the operator.`);
    checkRecipient(channel, request.to);
    if (channel === 'email' && !request.subject) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'subject is required for email.');
    const driver = context.drivers.require(channel);
    const now = new Date().toISOString();
    const id = newId('msg');
    const outbound: OutboundMessage = {
      channel,
      from: held.address,
      to: request.to,
      body: request.body,
      ...(request.subject === undefined ? {} : { subject: request.subject }),
      ...(request.html === undefined ? {} : { html: request.html }),
      ...(request.mediaUrls === undefined ? {} : { mediaUrls: request.mediaUrls }),
      statusCallbackUrl: `${context.publicBaseUrl()}/webhooks/${encodeURIComponent(agent.agentId)}/${channel}`,
      idempotencyKey: id,
    };
    const segments = channel === 'sms' ? countSegments(request.body).segments : 1;
    const cost = context.tariffs.cost(channel, segments, request.to, driver.estimateCost?.(outbound, segments));
    const ledger = await context.limiter.ledger(actor);
    const admission = await context.limiter.admit(actor, cost);
    const message: MessageRecord = {
      id,
      agentId: agent.agentId,
      channel,
      direction: 'outbound',
      from: held.address,
      to: request.to,
      subject: request.subject ?? null,
      body: request.body,
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
    };
    const usage: UsageRecord = {
      id: newId('use'),
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
    const writes =
      channel === 'sms'
        ? [store.messages.insertUnlessOptedOutStatement(message), store.usage.insertForMessageStatement(usage, message.id)]
        : [store.messages.insertStatement(message), store.usage.insertStatement(usage)];
    return new Continuation(async () => {
      try {
        const [stored] = await store.db.executeAll(writes);
        if (stored!.changes === 0) {
          throw new SwitchboardError(ErrorCodes.RECIPIENT_OPTED_OUT, `${request.to} replied STOP to ${held.address}; it can be texted again after it sends START.`);
        }
      } catch (err) {
        ledger.release(admission);
        throw err;
      }
      return deliverToProvider(context, store, message, outbound, metering, request.idempotency);
    });
  };
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
  store: Store,
  message: MessageRecord,
  outbound: OutboundMessage,
  metering: Metering,
  idempotency: IdempotencySlot | undefined,
): Promise<SendResponse> {
  const driver = context.drivers.require(message.channel);
  const where = { provider: driver.manifest.name, agentId: message.agentId, messageId: message.id, channel: message.channel };
  let attempts = 0;
  let result: SendResult;
  try {
    result = await pRetry(
      () => {
        attempts++;
        return withTimeout(driver.send!(outbound), context.sendRetry.timeoutMs, message.channel);
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
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    context.logger.error({ ...where, attempts, reason }, 'provider refused the message; it is a send_failed dead letter');
    metering.ledger.release(metering.admission);
    await store.db.transaction(async (tx) => {
      await store.usage.delete(metering.usageId, tx);
      await store.messages.markFailed(message.id, reason, tx);
      await store.deadLetters.insert(messageDeadLetter(message, 'send_failed', attempts, reason), tx);
    });
    context.events.emit('message', { channel: message.channel, direction: 'outbound', status: 'failed' });
    context.events.emit('deadLetter', { agentId: message.agentId, reason: 'send_failed' });
    throw new SwitchboardError(ErrorCodes.PROVIDER_ERROR, `The provider did not take the message after ${attempts} attempt(s): ${reason}`, { cause: err });
  }
  const cost = result.cost ?? metering.tariffCost;
  const response: SendResponse = {
    success: true,
    messageId: message.id,
    externalId: result.externalId,
    status: result.status,
    channel: message.channel,
    from: message.from,
    to: message.to,
    cost: round4(cost),
  };
  // The one commit after the provider call: its answer, the usage it settles and the idempotent replay.
  await store.db.executeAll([
    store.messages.markSentStatement(message.id, result),
    store.usage.settleStatement(metering.usageId, result.externalId, result.segments, result.cost),
    ...(idempotency ? [store.idempotency.recordStatement(idempotency.scope, idempotency.key, { requestHash: idempotency.requestHash, status: 200, body: response })] : []),
  ]);
  context.events.emit('usage', { channel: message.channel, action: 'message', cost });
  context.events.emit('message', { channel: message.channel, direction: 'outbound', status: result.status });
  return response;
}

/** A provider call that takes too long counts as a retryable failure; the message id is its idempotency key. */
function withTimeout<T>(work: Promise<T>, ms: number, channel: Channel): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SwitchboardError(ErrorCodes.PROVIDER_ERROR, `the ${channel} provider did not answer within ${ms} ms`, { retryable: true })),
      ms,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
