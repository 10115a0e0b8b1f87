import {
  headerValue,
  malformedPayload,
  signatureError,
  type DeliveryStatusEvent,
  type InboundEvent,
  type InboundMessageEvent,
  type WebhookAck,
  type WebhookCapability,
  type WebhookRequest,
} from '@switchboard/sdk';
import { timingSafeEqual } from 'node:crypto';
import twilio from 'twilio';
import { fromTwilioAddress, isWhatsAppAddress } from './addresses.js';
import { priceToCost } from './messaging.js';
import { normaliseStatus } from './status.js';

type FormParams = Record<string, string | string[]>;

/** Webhook handling for Twilio messaging: signature check, parsing, TwiML acknowledgement. */
export function messagingWebhooks(authToken: string): WebhookCapability {
  return {
    verify: (request) => verifySignature(authToken, request),
    parse: (request) => parseMessagingWebhook(request),
    acknowledge: () => acknowledgement(),
  };
}

/** Checks `X-Twilio-Signature` (or `X-Telephony-Signature`) with the SDK's own validator; throws SIGNATURE_INVALID. */
export function verifySignature(authToken: string, request: WebhookRequest): void {
  const signature = headerValue(request.headers, 'x-twilio-signature', 'x-telephony-signature');
  if (signature === undefined) throw signatureError('twilio', 'is missing');
  let valid: boolean;
  try {
    // JSON bodies are signed through a bodySHA256 query parameter instead of the form params.
    valid = hasBodyHash(request.url)
      ? twilio.validateRequestWithBody(authToken, signature, request.url, request.rawBody.toString('utf8'))
      : signedWithPort(authToken, signature, request.url, isGet(request) ? {} : formParams(request.rawBody));
  } catch (err) {
    throw signatureError('twilio', 'could not be checked', err);
  }
  if (valid !== true) throw signatureError('twilio', 'does not match the request');
}

/**
 * twilio's `validateRequest`, with one HMAC instead of two for a URL that names its port (a gateway
 * not on 443, as Twilio signs the URL it was given): the SDK tries the URL without the port first.
 * The URL as received is checked with the SDK's own signature function; anything else goes to the SDK.
 */
function signedWithPort(authToken: string, signature: string, url: string, params: FormParams): boolean {
  if (EXPLICIT_PORT.test(url)) {
    const expected = Buffer.from(twilio.getExpectedTwilioSignature(authToken, url, params));
    const given = Buffer.from(signature);
    if (expected.length === given.length && timingSafeEqual(expected, given)) return true;
  }
  return twilio.validateRequest(authToken, signature, url, params);
}

const EXPLICIT_PORT = /^https?:\/\/[^/?#]*:\d+(?:[/?#]|$)/i;

/** An inbound message or a status callback as a normalised event; an unknown status yields nothing. */
export function parseMessagingWebhook(request: WebhookRequest): InboundEvent[] {
  // A GET webhook carries its parameters in the (signed) URL instead of the body.
  const params = isGet(request) ? queryParams(request.url) : formParams(request.rawBody);
  const sid = one(params, 'MessageSid') ?? one(params, 'SmsMessageSid') ?? one(params, 'SmsSid');
  if (!sid) throw malformedPayload('twilio', 'has no MessageSid');
  const from = one(params, 'From');
  const to = one(params, 'To');
  const channel = isWhatsAppAddress(from) || isWhatsAppAddress(to) ? 'whatsapp' : request.channel;
  const status = one(params, 'MessageStatus') ?? one(params, 'SmsStatus');

  if (status !== undefined && status !== 'received' && status !== 'receiving') {
    const normalised = normaliseStatus(status);
    if (normalised === undefined) return [];
    const errorCode = one(params, 'ErrorCode');
    const event: DeliveryStatusEvent = {
      type: 'status',
      channel,
      externalId: sid,
      status: normalised,
      cost: priceToCost(one(params, 'Price')),
      eventId: `${sid}:${status}`,
      ...(errorCode ? { errorCode } : {}),
    };
    return [event];
  }

  if (!from || to === undefined) throw malformedPayload('twilio', 'has no From or To');
  const event: InboundMessageEvent = {
    type: 'message',
    channel,
    externalId: sid,
    from: fromTwilioAddress(from),
    to: fromTwilioAddress(to),
    body: one(params, 'Body') ?? '',
    mediaUrls: mediaUrls(params),
    receivedAt: new Date().toISOString(),
  };
  return [event];
}

/** The empty TwiML answer Twilio expects for messaging webhooks. */
/** The empty TwiML answer: built once with the SDK, since it never varies. */
const EMPTY_TWIML: WebhookAck = { contentType: 'text/xml', body: new twilio.twiml.MessagingResponse().toString() };

export function acknowledgement(): WebhookAck {
  return EMPTY_TWIML;
}

/** True for a JSON webhook, signed through a `bodySHA256` query parameter (the URL is parsed only when it has a query). */
function hasBodyHash(url: string): boolean {
  return url.includes('?') && new URL(url).searchParams.has('bodySHA256');
}

function isGet(request: WebhookRequest): boolean {
  return request.method.toUpperCase() === 'GET';
}

function queryParams(url: string): FormParams {
  try {
    return formParams(Buffer.from(new URL(url).search.slice(1)));
  } catch (err) {
    throw malformedPayload('twilio', 'came with an unreadable URL', err);
  }
}

/** The form parameters of a raw `application/x-www-form-urlencoded` body; repeated keys become arrays. */
export function formParams(rawBody: Buffer): FormParams {
  // The signature check and the parser both need the parameters of the same body: decode it once.
  const cached = parsedBodies.get(rawBody);
  if (cached) return cached;
  const params: FormParams = {};
  for (const [key, value] of new URLSearchParams(rawBody.toString('utf8'))) {
    const seen = params[key];
    params[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  parsedBodies.set(rawBody, Object.freeze(params));
  return params;
}

const parsedBodies = new WeakMap<Buffer, FormParams>();

function one(params: FormParams, key: string): string | undefined {
  const value = params[key];
  return Array.isArray(value) ? value[0] : value;
}

function mediaUrls(params: FormParams): string[] {
  return Object.keys(params)
    .map((key) => /^MediaUrl(\d+)$/.exec(key))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((m) => one(params, m[0])!)
    .filter((url) => url.length > 0);
}
