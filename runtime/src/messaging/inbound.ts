import {
  ErrorCodes,
  SwitchboardError,
  hasErrorCode,
  isRetryable,
  toErrorPayload,
  type Channel,
  type DeliveryStatusEvent,
  type Driver,
  type InboundEvent,
  type InboundMessageEvent,
  type WebhookRequest,
} from '@switchboard/sdk';
import { defineOperation, type AgentOperation } from '../actors/operation.js';
import type { AgentActor } from '../actors/agent-actor.js';
import type { AgentClient } from '../agents/agent-client.js';
import type { RecentAgents } from '../agents/recent-agents.js';
import { AGENT_OPERATIONS, type InboundWebhook, type WebhookAnswer } from '../protocol/operations.js';
import { requireAgent } from '../agents/operations.js';
import type { InboundDelivery } from '../delivery/delivery-service.js';
import type { DriverSet } from '../drivers/registry.js';
import type { VerifiedWebhook, VerifiedWebhooks } from '../drivers/webhook-port.js';
import type { RuntimeEvents } from '../events.js';
import { newId } from '../ids.js';
import { tracing } from '../tracing.js';
import { receivedEntry } from '../inbox/entries.js';
import type { Logger } from '../logger.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { Store } from '../store/store.js';
import type { MessagingContext } from './context.js';
import { optKeyword } from './opt-out.js';
import { personAddress } from '../compliance/contact-policy.js';
import { applyReceipt, applyReceiptOver, type StatusTelling } from './receipts.js';
import { SentThroughHere, type SentMessage } from './recent-sends.js';

/** The repositories an inbound message is stored with. */
type InboundStore = Pick<Store, 'db' | 'inbox' | 'messages' | 'deadLetters' | 'optOuts' | 'doNotContact'>;

/** What storing inbound messages works with, wherever it is done: at the edge (a gateway) or in an agent's operation. */
export interface InboundParts extends StatusTelling {
  readonly logger: Logger;
  readonly delivery: InboundDelivery;
}

/**
 * Svix (Resend's sender) retries every non-2xx for about a day unless the answer carries this header;
 * Twilio and LINE do not retry a 4xx. A permanently bad event says so to every provider the same way.
 */
const STOP_RETRYING = { 'webhook-delivery': 'abort-message' } as const;

/**
 * How long a webhook whose receipts go to the agent's actor waits for it. Providers give up on their own
 * after 10–15 s and retry (deduplicated by provider id), so a call lost with a dead runtime node answers 504 in time.
 */
const RECEIPTS_TIMEOUT_MS = 10_000;

/**
 * Inbound messages stored at the edge: the process that verified a webhook stores what it brings
 * (message, inbox entry, and the dead letter or the queued delivery) in the commit an agent's operation
 * would make, and the runtime nodes are told only to deliver (a `deliver` work item). A receipt for a
 * message whose send answered through this process is applied here too, over that answer (no read), and
 * the agent told through the delivery chain (in a cluster, a `notify` work item); any other keeps the hop
 * to the agent's actor (`inbound`), which holds its recent sends and waits for a send's outcome commit.
 * Nothing here needs the agent's mailbox: messages of one agent are ordered by their inbox cursor,
 * which the store gives in commit order, and a deprovision under way waits for the commit (messages.ts).
 */
export class EdgeInbound implements VerifiedWebhooks {
  constructor(
    private readonly parts: InboundParts,
    private readonly store: InboundStore,
    /** The agents' records, kept a moment (a busy agent's webhooks cost no read each). */
    private readonly records: Pick<RecentAgents, 'get'>,
    private readonly agents: Pick<AgentClient, 'call'>,
    /** The messages sent through this process: their receipts cost no read. */
    private readonly sent: SentThroughHere = new SentThroughHere(),
  ) {}

  async receive(webhook: VerifiedWebhook): Promise<WebhookAnswer> {
    const { agentId, channel, provider, request } = webhook;
    const driver = driverOf(this.parts.drivers, channel, provider);
    // In the order the agent's operation takes them: no such agent, a blocked channel, then the events.
    const agent = await this.records.get(agentId);
    if (!agent) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `Agent ${agentId} does not exist.`);
    if (agent.blockedChannels.includes(channel)) return BLOCKED;
    const parsed = await parse(this.parts, driver, agentId, request);
    if ('answer' in parsed) return parsed.answer;
    const receipts = this.#receiptsHere(agent, parsed.events);
    if (!receipts) return this.#toActor(webhook);
    for (const event of parsed.events) {
      if (isMessage(event)) await storeMessage(this.parts, this.store, agent, event, provider);
      else await this.#applyReceipt(agent, receipts.get(event)!, event);
    }
    return acknowledgement(driver, channel);
  }

  /**
   * The messages a webhook's receipts are about, as their sends answered through this process; undefined
   * when one is for the agent's actor: a receipt of a send answered elsewhere, or not answered yet (it came
   * before the send's outcome was committed; a read here would cost more than the hop, which waits for the
   * commit), one that suppresses an address (with the actor's do-not-contact list), and, traced, one the
   * agent will be told of (its callback continues the send's trace, known only where the send ran).
   */
  #receiptsHere(agent: AgentRecord, events: InboundEvent[]): Map<DeliveryStatusEvent, SentMessage> | undefined {
    const found = new Map<DeliveryStatusEvent, SentMessage>();
    const traced = tracing.on && this.parts.delivery.reachable(agent);
    for (const event of events) {
      if (isMessage(event)) continue;
      const message = event.suppression || traced ? undefined : this.sent.find(agent.agentId, event.externalId);
      if (!message) return undefined;
      found.set(event, message);
    }
    return found;
  }

  async #applyReceipt(agent: AgentRecord, message: SentMessage, event: DeliveryStatusEvent): Promise<void> {
    if (await applyReceiptOver(this.parts, this.store, agent, message, event)) this.sent.update(message, event.status);
  }

  /** A webhook with receipts, whole, to the agent's actor (which parses it again and applies everything). */
  #toActor({ agentId, channel, provider, request }: VerifiedWebhook): Promise<WebhookAnswer> {
    const forwarded = { channel, provider, method: request.method, url: request.url, headers: request.headers, rawBodyBase64: request.rawBody.toString('base64') };
    return this.agents.call('inbound', agentId, forwarded, { timeoutMs: RECEIPTS_TIMEOUT_MS });
  }
}

/**
 * `inbound`: a provider webhook for one agent, its signature already checked on the raw bytes by the
 * gateway before it crossed the bus: receipts (which read the actor's recent sends), and whole webhooks
 * from gateways of a release before the edge stored messages. A blocked channel answers 200 and stops;
 * otherwise events are parsed, messages deduplicated by provider id and stored, their delivery
 * scheduled, receipts applied, and only then is the acknowledgement returned.
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

const BLOCKED: WebhookAnswer = { status: 200, contentType: 'text/plain', body: '' };

async function receive(context: MessagingContext, store: InboundStore, actor: AgentActor, agent: AgentRecord, webhook: InboundWebhook): Promise<WebhookAnswer> {
  // The provider whose signature the gateway found; the channel's own for a gateway that does not say.
  const driver = driverOf(context.drivers, webhook.channel, webhook.provider);
  const request: WebhookRequest = {
    channel: webhook.channel,
    method: webhook.method,
    url: webhook.url,
    headers: webhook.headers,
    rawBody: Buffer.from(webhook.rawBodyBase64, 'base64'),
  };
  if (agent.blockedChannels.includes(webhook.channel)) return BLOCKED;
  const parsed = await parse(context, driver, agent.agentId, request);
  if ('answer' in parsed) return parsed.answer;
  for (const event of parsed.events) {
    if (isMessage(event)) await storeMessage(context, store, agent, event, driver.manifest.provider);
    else await applyReceipt(context, store, actor, agent, event);
  }
  return acknowledgement(driver, webhook.channel);
}

function driverOf(drivers: DriverSet, channel: Channel, provider: string | undefined): Driver {
  const driver = (provider ? drivers.ofProvider(provider) : undefined) ?? drivers.require(channel);
  if (!driver.webhooks) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `The ${driver.manifest.provider} driver takes no webhooks.`);
  return driver;
}

function isMessage(event: InboundEvent): event is InboundMessageEvent {
  return event.type === 'message';
}

function acknowledgement(driver: Driver, channel: Channel): WebhookAnswer {
  const ack = driver.webhooks!.acknowledge(channel);
  return { status: 200, contentType: ack.contentType, body: ack.body };
}

/** The webhook's events, or for a signed event that can never succeed the answer that asks the provider to stop retrying. */
async function parse(parts: InboundParts, driver: Driver, agentId: string, request: WebhookRequest): Promise<{ events: InboundEvent[] } | { answer: WebhookAnswer }> {
  const provider = driver.manifest.provider;
  try {
    return { events: await driver.webhooks!.parse(request) };
  } catch (err) {
    const refusal = permanentRefusal(err);
    if (!refusal) throw err; // transient (provider 5xx, time-out, network): a 5xx, so the provider retries
    parts.events.emit('webhookRejected', { provider, reason: refusal.reason });
    parts.logger.warn({ agentId, provider, channel: request.channel, reason: refusal.reason, err }, 'signed webhook refused for good: nothing stored');
    return { answer: { status: refusal.status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(toErrorPayload(err)), headers: { ...STOP_RETRYING } } };
  }
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

async function storeMessage(context: InboundParts, store: InboundStore, agent: AgentRecord, event: InboundMessageEvent, provider: string): Promise<void> {
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
  const writes = [store.messages.insertInboundForAgentStatement(message), store.inbox.appendStatement(receivedEntry(message)), ...(letter ? [letter] : [])];
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
