import { createHmac, randomBytes } from 'node:crypto';
import type { SimulatorState } from '../simulator-state.js';
import type { InboundCloudMessageOptions, InboundResult, WebhookTampering } from '../inbound-types.js';
import { deliverWebhook, webhookUrl, type WebhookAnswer } from '../webhook-delivery.js';
import { wamid, type CloudMessage, type CloudMessageStatus, type CloudPhoneNumber } from './cloud-ledger.js';

/** Meta's webhook signature: `sha256=` and the hex HMAC-SHA256 of the body under the app secret. */
export function hubSignature(appSecret: string, body: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(body, 'utf8').digest('hex')}`;
}

const digits = (address: string) => address.replace(/[^0-9]/g, '');
const unixSeconds = (date: Date) => String(Math.floor(date.getTime() / 1000));

/** A `messages` field notification for one business number, as Meta batches it (`entry[].changes[].value`). */
function notification(state: SimulatorState, number: CloudPhoneNumber, value: Record<string, unknown>): Record<string, unknown> {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: state.credentials.whatsappCloud.wabaId,
        changes: [{ value: { messaging_product: 'whatsapp', metadata: { display_phone_number: digits(number.number), phone_number_id: number.id }, ...value }, field: 'messages' }],
      },
    ],
  };
}

/** Posts a notification signed as Meta signs it (`X-Hub-Signature-256`); tampering breaks it on purpose. */
export function postCloudWebhook(state: SimulatorState, url: string, event: Record<string, unknown>, o: WebhookTampering = {}): Promise<WebhookAnswer> {
  const body = JSON.stringify(event);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'facebookexternalua' };
  if (!o.omitSignature) headers['x-hub-signature-256'] = hubSignature(state.credentials.whatsappCloud.appSecret, body);
  return deliverWebhook(url, headers, o.tamper ? body.replace(/"entry":\[\{/, '"entry":[{"tampered":true,') : body);
}

/** The status notification of a message, as the `statuses` entry Meta posts. */
function statusValue(message: CloudMessage, status: CloudMessageStatus, at: Date): Record<string, unknown> {
  return {
    statuses: [
      {
        id: message.id,
        status,
        timestamp: unixSeconds(at),
        recipient_id: message.to,
        ...(status === 'failed'
          ? { errors: message.error ? [message.error] : [] }
          : { pricing: { billable: message.category !== 'service', pricing_model: 'PMP', type: message.category === 'service' ? 'free_customer_service' : 'regular', category: message.category } }),
      },
    ],
  };
}

/**
 * Moves a message through `sent` and `delivered` (or to `failed`, with its error), one delay apart,
 * posting each status to the number's callback URL; with none, the status moves unannounced.
 */
export function scheduleCloudStatuses(state: SimulatorState, number: CloudPhoneNumber, message: CloudMessage): void {
  const delay = state.settings.statusCallbackDelayMs;
  const post = async (status: CloudMessageStatus) => {
    message.status = status;
    const url = number.callbackUrl;
    if (!url || !state.settings.statusCallbacks) return;
    try {
      const answer = await postCloudWebhook(state, url, notification(state, number, statusValue(message, status, state.clock.now())));
      if (answer.status >= 400) state.logger.warn({ messageId: message.id, status, answer: answer.status }, 'simulator: whatsapp-cloud webhook refused');
    } catch (err) {
      state.logger.warn({ messageId: message.id, status, err }, 'simulator: whatsapp-cloud webhook failed');
    }
  };
  const generation = state.tasks.generation;
  if (message.error) {
    state.tasks.run(delay, () => post('failed'));
    return;
  }
  state.tasks.run(delay, async () => {
    await post('sent');
    // `delivered` follows only once `sent` was posted, so the two never arrive out of order.
    if (state.tasks.generation !== generation) return;
    state.tasks.run(delay, () => post('delivered'));
  });
}

/** Posts a text message from a user to a business number (`messages` field), and opens their 24-hour window. */
export async function sendInboundCloudMessage(state: SimulatorState, o: InboundCloudMessageOptions): Promise<InboundResult> {
  const number = state.whatsappCloud.byNumber(o.to);
  if (!number) throw new TypeError(`${o.to} is not a business number of the simulated WhatsApp account; use one of the simulator's phoneNumbers`);
  const url = o.url || o.agentId ? webhookUrl(state.gatewayUrl, o, 'whatsapp') : number.callbackUrl;
  if (!url) throw new TypeError('An inbound WhatsApp Cloud message needs agentId (with gatewayUrl set), url, or a callback URL subscribed for the number');
  const id = o.messageId ?? wamid();
  const now = state.clock.now();
  state.whatsappCloud.windows.wrote(o.from, number.number, now);
  const value = {
    contacts: [{ profile: { name: o.profileName ?? 'Simulated User' }, wa_id: digits(o.from) }],
    messages: [{ from: digits(o.from), id, timestamp: unixSeconds(now), text: { body: o.body }, type: 'text' }],
  };
  const answer = await postCloudWebhook(state, url, notification(state, number, value), o);
  return { ...answer, id, url };
}

/**
 * Meta's check of a callback URL: a GET with `hub.mode=subscribe`, the verify token and a challenge,
 * which the endpoint must echo. Resolves whether it did.
 */
export async function verifyCallback(url: string, verifyToken: string): Promise<boolean> {
  const challenge = String(randomBytes(4).readUInt32BE());
  const target = new URL(url);
  target.searchParams.set('hub.mode', 'subscribe');
  target.searchParams.set('hub.challenge', challenge);
  target.searchParams.set('hub.verify_token', verifyToken);
  try {
    const res = await fetch(target, { signal: AbortSignal.timeout(15_000) });
    return res.status === 200 && (await res.text()) === challenge;
  } catch {
    return false;
  }
}
