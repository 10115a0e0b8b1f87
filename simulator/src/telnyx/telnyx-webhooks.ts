import { randomUUID } from 'node:crypto';
import { countSegments } from '@switchboard/sdk';
import type { SimulatorState } from '../simulator-state.js';
import type { InboundResult, InboundTelnyxMessageOptions, InboundTelnyxStatusOptions, WebhookTampering } from '../inbound-types.js';
import type { SilentOutcome } from '../types.js';
import { deliverWebhook, webhookUrl, type WebhookAnswer } from '../webhook-delivery.js';
import { telnyxSignature } from './telnyx-keys.js';
import { messageJson } from './telnyx-format.js';
import type { TelnyxMessage, TelnyxMessageStatus } from './telnyx-ledger.js';

/** Price per part the simulated carrier bills, in USD, as Telnyx's decimal string. */
const PRICE = { SMS: 0.004, MMS: 0.015 } as const;

/** Telnyx's error for a message the carrier could not hand to the phone. */
const UNDELIVERABLE = { code: '40300', title: 'Unreachable destination', detail: 'The destination handset could not be reached.' };

interface SignedPost extends WebhookTampering {
  timestamp?: Date;
}

/** The event envelope Telnyx posts: `{data: {event_type, id, occurred_at, payload, record_type}, meta}`. */
function envelope(eventType: string, payload: Record<string, unknown>, url: string, eventId: string = randomUUID()): { id: string; body: Record<string, unknown> } {
  return {
    id: eventId,
    body: { data: { event_type: eventType, id: eventId, occurred_at: new Date().toISOString(), payload, record_type: 'event' }, meta: { attempt: 1, delivered_to: url } },
  };
}

/** Posts an event signed as Telnyx signs it (Ed25519 over `timestamp|body`); tampering breaks it on purpose. */
export function postTelnyxWebhook(state: SimulatorState, url: string, event: Record<string, unknown>, o: SignedPost = {}): Promise<WebhookAnswer> {
  const body = JSON.stringify(event);
  const timestamp = String(Math.floor((o.timestamp ?? new Date()).getTime() / 1000));
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'telnyx-webhooks' };
  if (!o.omitSignature) {
    headers['telnyx-signature-ed25519'] = telnyxSignature(state.credentials.telnyx.signingKey, timestamp, body);
    headers['telnyx-timestamp'] = timestamp;
  }
  return deliverWebhook(url, headers, o.tamper ? body.replace(/"payload":\{/, '"payload":{"tampered":true,') : body);
}

/** Moves a message to `status` as the carrier reports it: timestamps, the bill, an error on failure. */
function advance(message: TelnyxMessage, status: TelnyxMessageStatus): void {
  const now = new Date();
  message.status = status;
  if (status === 'sent') message.sentAt = now;
  if (status === 'delivered' || status === 'delivery_failed' || status === 'delivery_unconfirmed' || status === 'sending_failed') {
    message.completedAt = now;
    message.cost = (PRICE[message.type] * message.parts).toFixed(4);
  }
  if (status === 'delivery_failed' || status === 'sending_failed') message.errors = [UNDELIVERABLE];
}

/**
 * Posts `message.sent`, then `message.finalized` (delivered), one delay apart, to the message's
 * webhook URL; a failed post is logged and otherwise ignored. Without a URL the status still moves.
 */
export function scheduleTelnyxStatusWebhooks(state: SimulatorState, message: TelnyxMessage): void {
  const delay = state.settings.statusCallbackDelayMs;
  const post = async (eventType: string) => {
    if (!message.webhookUrl) return;
    try {
      const answer = await postTelnyxWebhook(state, message.webhookUrl, envelope(eventType, messageJson(state.telnyx, message), message.webhookUrl).body);
      if (answer.status >= 400) state.logger.warn({ messageId: message.id, eventType, answer: answer.status }, 'simulator: telnyx webhook refused');
    } catch (err) {
      state.logger.warn({ messageId: message.id, eventType, err }, 'simulator: telnyx webhook failed');
    }
  };
  const generation = state.tasks.generation;
  state.tasks.run(delay, async () => {
    advance(message, 'sent');
    await post('message.sent');
    // `finalized` follows only once `sent` was posted, so the two never arrive out of order.
    if (state.tasks.generation !== generation) return;
    state.tasks.run(delay, async () => {
      advance(message, 'delivered');
      await post('message.finalized');
    });
  });
}

/**
 * A silenced Telnyx (`Simulator.silence`): the message moves to `sent`, then to `outcome`
 * (`undelivered` is `delivery_failed`), one delay apart, with no event; only GET /v2/messages/{id} tells.
 */
export function scheduleSilentTelnyxOutcome(state: SimulatorState, message: TelnyxMessage, outcome: SilentOutcome): void {
  const delay = state.settings.statusCallbackDelayMs;
  state.tasks.run(delay, () => {
    advance(message, 'sent');
    if (outcome !== 'sent') state.tasks.run(delay, () => advance(message, outcome === 'delivered' ? 'delivered' : 'delivery_failed'));
  });
}

/** Posts a `message.received` event for an inbound SMS (MMS with media URLs). */
export async function sendInboundTelnyxMessage(state: SimulatorState, o: InboundTelnyxMessageOptions): Promise<InboundResult> {
  const url = webhookUrl(state.gatewayUrl, o, 'sms');
  const id = o.messageId ?? randomUUID();
  const mediaUrls = o.mediaUrls ?? [];
  const segments = countSegments(o.body);
  const payload = {
    record_type: 'message',
    direction: 'inbound',
    id,
    type: mediaUrls.length > 0 ? 'MMS' : 'SMS',
    messaging_profile_id: state.telnyx.messagingProfileId,
    organization_id: state.telnyx.organizationId,
    from: { phone_number: o.from, carrier: 'T-MOBILE USA, INC.', line_type: 'Wireless' },
    to: [{ phone_number: o.to, status: 'webhook_delivered', carrier: 'Telnyx', line_type: 'Wireless' }],
    cc: [],
    text: o.body,
    subject: null,
    media: mediaUrls.map((u) => ({ url: u, content_type: null, sha256: null, size: null })),
    webhook_url: url,
    webhook_failover_url: null,
    encoding: segments.encoding,
    parts: segments.segments,
    tags: [],
    cost: null,
    received_at: new Date().toISOString(),
    sent_at: null,
    completed_at: null,
    valid_until: null,
    errors: [],
  };
  const event = envelope('message.received', payload, url, o.eventId);
  const answer = await postTelnyxWebhook(state, url, event.body, o);
  return { ...answer, id, url };
}

/**
 * Posts a delivery event for a message: the simulator's own when it sent it (moved to `status`),
 * else one made from the options' addresses.
 */
export async function sendTelnyxStatus(state: SimulatorState, o: InboundTelnyxStatusOptions): Promise<InboundResult> {
  const url = webhookUrl(state.gatewayUrl, o, 'sms');
  const known = state.telnyx.messages.get(o.messageId);
  const message: TelnyxMessage = known ?? {
    id: o.messageId,
    type: 'SMS',
    from: o.from ?? state.settings.phoneNumbers[0] ?? '+15555550100',
    to: o.to ?? '+15555550199',
    text: '',
    subject: null,
    mediaUrls: [],
    messagingProfileId: state.telnyx.messagingProfileId,
    webhookUrl: url,
    webhookFailoverUrl: null,
    parts: 1,
    encoding: 'GSM-7',
    status: 'queued',
    cost: null,
    errors: [],
    receivedAt: new Date(),
    sentAt: null,
    completedAt: null,
  };
  advance(message, o.status);
  if (o.errorCode !== undefined) message.errors = [{ ...UNDELIVERABLE, code: o.errorCode }];
  const eventType = o.status === 'sent' || o.status === 'queued' || o.status === 'sending' ? 'message.sent' : 'message.finalized';
  const event = envelope(eventType, messageJson(state.telnyx, message), url, o.eventId);
  const answer = await postTelnyxWebhook(state, url, event.body, o);
  return { ...answer, id: event.id, url };
}
