import {
  ErrorCodes,
  SwitchboardError,
  hasErrorCode,
  isRetryable,
  toErrorPayload,
  type InboundMessageEvent,
  type WebhookRequest,
} from '@switchboard/sdk';
import { defineOperation, type AgentOperation } from '../actors/operation.js';
import type { AgentActor } from '../actors/agent-actor.js';
import { AGENT_OPERATIONS, type InboundWebhook, type WebhookAnswer } from '../protocol/operations.js';
import { requireAgent } from '../agents/operations.js';
import { newId } from '../ids.js';
import { receivedEntry } from '../inbox/entries.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { Store } from '../store/store.js';

type InboundStore = Pick<Store, 'db' | 'inbox' | 'messages' | 'deadLetters' | 'optOuts' | 'doNotContact'>;
import type { MessagingContext } from './context.js';
import { optKeyword } from './opt-out.js';
import { personAddress } from '../compliance/contact-policy.js';
import { applyReceipt } from './receipts.js';

/**
 * Svix (Resend's sender) retries every non-2xx for about a day unless the answer carries this header;
 * Twilio and LINE do not retry a 4xx. A permanently bad event says so to every provider the same way.
 */
const STOP_RETRYING = { 'webhook-delivery': 'abort-message' } as const;

/**
 * `inbound`: a provider webhook for one agent, its signature already checked on the raw bytes by the
 * gateway (`verifyWebhook`) before it crossed the bus. A blocked channel answers 200 and stops;
 * otherwise events are parsed, messages deduplicated by provider id and stored, their delivery
 * scheduled, and only then is the acknowledgement returned.
 */
export function inboundOperation(context: MessagingContext): AgentOperation {
  return defineOperation(AGENT_OPERATIONS.inbound, {
    needs: ['db', 'inbox', 'messages', 'deadLetters', 'optOuts', 'doNotContact'],
    async handle({ actor, store }, webhook) {
      const agent = requireAgent(actor);
      return receive(context, store, actor, agent, webhook);
    },
  });
}

async function receive(context: MessagingContext, store: InboundStore, actor: AgentActor, agent: AgentRecord, webhook: InboundWebhook): Promise<WebhookAnswer> {
  // The provider whose signature the gateway found; the channel's own for a gateway that does not say.
  const driver = (webhook.provider ? context.drivers.ofProvider(webhook.provider) : undefined) ?? context.drivers.require(webhook.channel);
  const capability = driver.webhooks;
  if (!capability) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `The ${driver.manifest.provider} driver takes no webhooks.`);
  const request: WebhookRequest = {
    channel: webhook.channel,
    method: webhook.method,
    url: webhook.url,
    headers: webhook.headers,
    rawBody: Buffer.from(webhook.rawBodyBase64, 'base64'),
  };
  const provider = driver.manifest.provider;
  if (agent.blockedChannels.includes(webhook.channel)) return { status: 200, contentType: 'text/plain', body: '' };
  let events;
  try {
    events = await capability.parse(request);
  } catch (err) {
    const refusal = permanentRefusal(err);
    if (!refusal) throw err; // transient (provider 5xx, time-out, network): a 5xx, so the provider retries
    context.events.emit('webhookRejected', { provider, reason: refusal.reason });
    context.logger.warn({ agentId: agent.agentId, provider, channel: webhook.channel, reason: refusal.reason, err }, 'signed webhook refused for good: nothing stored');
    return { status: refusal.status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(toErrorPayload(err)), headers: { ...STOP_RETRYING } };
  }
  for (const event of events) {
    if (event.type === 'message') await storeMessage(context, store, agent, event, provider);
    else await applyReceipt(context, store, actor, agent, event);
  }
  const ack = capability.acknowledge(webhook.channel);
  return { status: 200, contentType: ack.contentType, body: ack.body };
}

/**
 * Whether a signed event can never succeed, and the 4xx that says so: a body that is not the
 * provider's shape (including an id not in the provider's format) is 400 `malformed`; an event the
 * provider itself refuses for good when asked for its content (a 4xx other than our own credentials)
 * is 422 `provider_refused`. Anything else may succeed on a retry and is not a refusal.
 */
function permanentRefusal(err: unknown): { status: number; reason: string } | undefined {
  if (hasErrorCode(err, ErrorCodes.MALFORMED_PAYLOAD)) return { status: 400, reason: 'malformed' };
  if (hasErrorCode(err, ErrorCodes.PROVIDER_ERROR) && !isRetryable(err)) return { status: 422, reason: 'provider_refused' };
  return undefined;
}

async function storeMessage(context: MessagingContext, store: InboundStore, agent: AgentRecord, event: InboundMessageEvent, provider: string): Promise<void> {
  const held = agent.channels.find((c) => c.channel === event.channel);
  // Written to the agent's sender at another provider, it keeps that address; else the channel's own.
  const sender = held?.senders?.[provider];
  const now = new Date().toISOString();
  const message: MessageRecord = {
    id: newId('msg'),
    agentId: agent.agentId,
    channel: event.channel,
    direction: 'inbound',
    from: event.from,
    to: sender ?? held?.address ?? event.to,
    subject: event.subject ?? null,
    body: event.body,
    html: event.html ?? null,
    mediaUrls: event.mediaUrls,
    externalId: event.externalId,
    status: 'received',
    segments: 1,
    cost: null,
    error: null,
    delivery: 'pending',
    createdAt: event.receivedAt || now,
    updatedAt: now,
    ...(event.emailMessageId ? { emailMessageId: event.emailMessageId } : {}),
    provider,
  };
  // An agent no one would hear gets its dead letter in the message's own commit, as does its inbox entry
  // (none for a provider retry: the entry's statements need the message this commit stores).
  const letter = context.delivery.offlineLetter(message, agent);
  const writes = [store.messages.insertInboundStatement(message), store.inbox.appendStatement(receivedEntry(message)), ...(letter ? [letter] : [])];
  const stored = (await store.db.executeAll(writes))[0]!.changes === 1;
  if (!stored) {
    // A provider retry: stored already. The first attempt may have stored the message and failed to
    // queue its delivery (in a cluster, NATS away, so the provider got a 5xx): queue it now (queued work
    // is deduplicated by message id, and a delivered message is skipped).
    const stored = await store.messages.pendingInbound(agent.agentId, event.channel, event.externalId);
    if (stored) await context.delivery.schedule(stored);
    return;
  }
  context.events.emit('message', { channel: event.channel, direction: 'inbound', status: 'received' });
  context.events.emit('inbox', { agentId: agent.agentId });
  if ((event.channel === 'sms' || event.channel === 'whatsapp') && held) {
    const keyword = optKeyword(event.body);
    // STOP also puts the person on the agent's do-not-contact list (calls and the other channels too); START takes them off.
    // On WhatsApp no carrier does it: the business must honour the opt-out itself, so the same words do the same.
    const source = event.channel === 'sms' ? 'sms-stop' : 'whatsapp-opt-out';
    const entry = { address: personAddress(event.channel, event.from), scope: agent.agentId, source, actor: 'contact', reason: `replied ${event.body.trim().slice(0, 20)}` } as const;
    if (keyword === 'out') {
      if (event.channel === 'sms') await store.optOuts.add('sms', held.address, event.from);
      await store.doNotContact.add(entry);
    }
    if (keyword === 'in') {
      if (event.channel === 'sms') await store.optOuts.remove('sms', held.address, event.from);
      await store.doNotContact.remove(entry);
    }
  }
  if (letter) context.delivery.lettered(message);
  else await context.delivery.schedule(message, agent);
}
