import { ErrorCodes, SwitchboardError, countSegments, hasErrorCode, type Channel, type OutboundMessage } from '@switchboard/sdk';
import { Continuation } from '../actors/continuation.js';
import { defineOperation, type AgentOperation } from '../actors/operation.js';
import { AGENT_OPERATIONS, type OperationRequest } from '../protocol/operations.js';
import { replyTarget, type Addressed } from '../conversations/reply-target.js';
import { requireOpenWindow } from '../conversations/service-window.js';
import { UsageLedger } from '../limits/usage-ledger.js';
import { requireAgent } from '../agents/operations.js';
import { newId } from '../ids.js';
import { statusEntry } from '../inbox/entries.js';
import { keyInUse } from '../store/repositories/idempotency.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import { contactSettingsOf, personAddress } from '../compliance/contact-policy.js';
import { unsubscribeHeaders, unsubscribeToken } from '../compliance/unsubscribe-link.js';
import type { UsageRecord } from '../store/repositories/usage.js';
import type { Store } from '../store/store.js';
import { checkRecipient } from './addresses.js';
import { contentOf } from './send-content.js';
import type { MessagingContext } from './context.js';
import { deliverToProvider, recordSent, routesOf, type Metering } from './send-provider.js';

/**
 * `send`: checks run in the agent's mailbox (channel held, not blocked, recipient valid and not
 * opted out, limits admit the cost) and the message and its usage record are stored; the provider
 * call runs after, outside the mailbox, retried with backoff when the provider says a retry can help.
 * A final failure gives the usage back, is stored, becomes a `send_failed` dead letter and answers
 * PROVIDER_ERROR. The provider half is in `send-provider.ts`.
 */

/** The repositories a send and its resumption see. */
const SEND_NEEDS = ['db', 'messages', 'optOuts', 'usage', 'idempotency', 'inbox', 'deadLetters', 'tenures', 'conversations'] as const;
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
      const contact = { agentId: agent.agentId, channel, to, ...(request.marketing ? { marketing: true } : {}) };
      // The do-not-contact list is checked by the message's INSERT below; the rest of the policy here.
      await context.policy.checkRules(contact, contactSettingsOf(agent));
      // A free-form WhatsApp message needs the person's last message within 24 hours; a template does not.
      // A listed recipient is refused as listed before any other refusal: the policy reads the list then.
      const listedFirst = (refusal: unknown) => context.policy.check(contact, contactSettingsOf(agent)).then(() => Promise.reject(refusal));
      if (channel === 'whatsapp' && !template) await requireOpenWindow(store, agent.agentId, to, clock.now()).catch(listedFirst);
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
      const admission = await context.limiter.admit(actor, cost).catch(listedFirst);
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
      // The do-not-contact list and SMS opt-outs are checked by the INSERT itself: one commit before the provider call, no read.
      // An Idempotency-Key is claimed in the same commit, so a repeat while the send is in flight waits.
      const { idempotency } = request;
      // Its inbox entry (queued) is in the same commit, and only if the message is stored.
      const unlisted = [context.policy.listCondition(contact), ...(channel === 'sms' ? [store.optOuts.absentCondition(channel, message.from, to)] : [])];
      const writes = [
        store.messages.insertOutboundStatement(message, unlisted, tenure),
        store.usage.insertForMessageStatement(usage, message.id),
        ...(idempotency ? [store.idempotency.claimStatement(idempotency, id)] : []),
        store.inbox.appendStatement(statusEntry(message, { status: 'queued' })),
      ];
      return new Continuation(async () => {
        // In flight here from before its first commit: a sweep never takes it for a send left unsent.
        const done = context.outbox.begin({ agentId: agent.agentId, messageId: id });
        try {
          const results = await store.db.executeAll(writes);
          const stored = results[0];
          const claimed = idempotency ? results[2] : undefined;
          if (stored!.changes === 0) {
            // In a cluster the INSERT is fenced: another node took the agent over since this one admitted the send.
            if (!(await store.tenures.isCurrent(tenure))) {
              throw new SwitchboardError(ErrorCodes.UNAVAILABLE, `Agent ${agent.agentId} moved to another node; retry.`, { retryable: true });
            }
            // Listed: the policy reads the entry to say which, and keeps the refusal.
            await context.policy.check(contact, contactSettingsOf(agent));
            if (channel === 'sms') throw new SwitchboardError(ErrorCodes.RECIPIENT_OPTED_OUT, `${to} replied STOP to ${held.address}; it can be texted again after it sends START.`);
            throw new SwitchboardError(ErrorCodes.UNAVAILABLE, `The do-not-contact entry for ${to} changed while the message was stored; retry.`, { retryable: true });
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
          done(false);
          throw err;
        }
        // Its `queued` entry is committed.
        context.events.emit('inbox', { agentId: agent.agentId });
        // Stored with no outcome, the message is its own journal: a node that dies from here on leaves
        // the send to whichever node takes its agent over (see outbox.ts for every case).
        // Its outcome is stored unless it threw other than as a final refusal (a node that lost the agent
        // leaves it unsent): then the outbox offers it to the agent's actor, wherever it runs, to finish.
        let leftUnsent = true;
        try {
          const response = await deliverToProvider(context, store, actor, message, outbound, metering, idempotency, tenure);
          leftUnsent = false;
          return response;
        } catch (err) {
          leftUnsent = !hasErrorCode(err, ErrorCodes.PROVIDER_ERROR);
          throw err;
        } finally {
          done(leftUnsent);
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
 * `resumeSend`: finishes a send stored and left without its outcome (its node died or lost the agent
 * during the provider call, or a write failed), run on whichever node holds the agent now. Nothing is
 * done when the send is still running on this node or already has its outcome. A provider that
 * deduplicates by idempotency key is simply sent to again (the message id is the key); for one that
 * does not, a message the provider already holds with the same addresses and body, and no other
 * message of ours claims, is adopted instead of sent twice.
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
      // Whoever asked (the outbox after a takeover or a failed write, the start-up sweep) asks again if this node dies too.
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
