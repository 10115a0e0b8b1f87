import { randomUUID } from 'node:crypto';
import { countSegments } from '@switchboard/sdk';
import type { SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import type { SimulatorState } from '../simulator-state.js';
import { telnyxError, telnyxHeaders, NOT_FOUND } from './telnyx-errors.js';
import { messageJson } from './telnyx-format.js';
import type { TelnyxMessage } from './telnyx-ledger.js';
import { scheduleSilentTelnyxOutcome, scheduleTelnyxStatusWebhooks } from './telnyx-webhooks.js';

const E164 = /^\+[1-9]\d{6,14}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Telnyx refuses SMS bodies beyond 10 parts' worth of characters. */
const MAX_TEXT = 1600;

function invalid(pointer: string, code: string, title: string, detail: string): SimResponse {
  return telnyxError(code.startsWith('403') ? 400 : 422, { code, title, detail, source: { pointer } });
}

/** POST /v2/messages: checks the request as Telnyx does, queues the message and schedules its webhooks. */
export function sendMessage(state: SimulatorState, req: SimRequest): SimResponse {
  const body = typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : undefined;
  if (!body || req.bodyError !== undefined) return telnyxError(400, { code: '10015', title: 'Bad Request', detail: 'The request body is not valid JSON.' });
  const { to, from, text, subject } = body;
  const media = body['media_urls'];
  if (typeof to !== 'string' || !E164.test(to)) return invalid('/to', '40310', "Invalid 'to' address", "The 'to' address should be in +E.164 format.");
  if (typeof from !== 'string' || from === '') return invalid('/from', '10004', 'Missing required parameter', "The 'from' parameter is required when sending from a phone number.");
  if (!state.settings.phoneNumbers.includes(from)) return invalid('/from', '40305', "Invalid 'from' address", 'The from address is not a number on this account.');
  const mediaUrls = Array.isArray(media) ? media : [];
  if (media !== undefined && (!Array.isArray(media) || !media.every((u) => typeof u === 'string' && /^https?:\/\//.test(u)))) {
    return invalid('/media_urls', '10015', 'Invalid value', 'media_urls must be a list of http(s) URLs.');
  }
  if ((typeof text !== 'string' || text === '') && mediaUrls.length === 0) return invalid('/text', '40008', 'Empty message body', 'Either text or media_urls is required.');
  if (typeof text === 'string' && text.length > MAX_TEXT) return invalid('/text', '40006', 'Message too long', `Text is limited to ${MAX_TEXT} characters.`);
  const webhookUrl = typeof body['webhook_url'] === 'string' ? body['webhook_url'] : null;
  const failover = typeof body['webhook_failover_url'] === 'string' ? body['webhook_failover_url'] : null;
  const messageText = typeof text === 'string' ? text : '';
  const type = mediaUrls.length > 0 || body['type'] === 'MMS' ? 'MMS' : 'SMS';
  const segments = countSegments(messageText);
  const message: TelnyxMessage = {
    id: randomUUID(),
    type,
    from,
    to,
    text: messageText,
    subject: typeof subject === 'string' ? subject : null,
    mediaUrls: mediaUrls as string[],
    messagingProfileId: typeof body['messaging_profile_id'] === 'string' ? body['messaging_profile_id'] : state.telnyx.messagingProfileId,
    webhookUrl,
    webhookFailoverUrl: failover,
    parts: type === 'MMS' ? 1 : segments.segments,
    encoding: segments.encoding,
    status: 'queued',
    cost: null,
    errors: [],
    receivedAt: new Date(),
    sentAt: null,
    completedAt: null,
  };
  state.telnyx.messages.set(message.id, message);
  state.messages.push({
    provider: 'telnyx',
    channel: 'sms',
    id: message.id,
    from,
    to,
    body: messageText,
    mediaUrls: [...message.mediaUrls],
    ...(webhookUrl ? { statusCallback: webhookUrl } : {}),
    at: message.receivedAt,
  });
  const silent = state.silenced.get('telnyx');
  if (silent) scheduleSilentTelnyxOutcome(state, message, silent);
  else if (state.settings.statusCallbacks) scheduleTelnyxStatusWebhooks(state, message);
  return { status: 200, headers: telnyxHeaders(), json: { data: messageJson(state.telnyx, message) } };
}

/** GET /v2/messages/{id}. */
export function retrieveMessage(state: SimulatorState, id: string): SimResponse {
  const message = UUID.test(id) ? state.telnyx.messages.get(id.toLowerCase()) : undefined;
  if (!message) return telnyxError(404, NOT_FOUND);
  return { status: 200, headers: telnyxHeaders(), json: { data: messageJson(state.telnyx, message) } };
}
