import { malformedPayload, type CallStatusEvent, type WebhookRequest } from '@switchboard/sdk';
import { priceToCost } from './messaging.js';
import { isCallSid } from './sids.js';
import { formParams } from './webhooks.js';

type FormParams = Record<string, string | string[]>;

/**
 * An incoming-call webhook or a call status callback as a normalised event. Twilio's `initiated`
 * (dialling started) counts as `queued`; `outbound-api` and `outbound-dial` are `outbound`.
 * Check the signature first with `webhooks.verify`: voice webhooks are signed like messaging ones.
 */
export function parseCallWebhook(request: WebhookRequest): CallStatusEvent {
  const params = request.method.toUpperCase() === 'GET' ? queryParams(request.url) : formParams(request.rawBody);
  const callSid = one(params, 'CallSid');
  if (!callSid) throw malformedPayload('twilio', 'has no CallSid');
  // The sid is stored and later put into API paths (transfer, hang-up): only a real call SID is taken.
  if (!isCallSid(callSid)) throw malformedPayload('twilio', 'has a CallSid that is not a Twilio call SID (CA and 32 hex digits)');
  const status = one(params, 'CallStatus')?.toLowerCase();
  if (!status) throw malformedPayload('twilio', 'has no CallStatus');
  const duration = Number.parseInt(one(params, 'CallDuration') ?? '', 10);
  const from = one(params, 'From');
  const to = one(params, 'To');
  const direction = one(params, 'Direction');
  return {
    type: 'call-status',
    callSid,
    status: status === 'initiated' ? 'queued' : status,
    durationSeconds: Number.isInteger(duration) && duration >= 0 ? duration : null,
    cost: priceToCost(one(params, 'Price')),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    ...(direction ? { direction: direction === 'inbound' ? 'inbound' : 'outbound' } : {}),
  };
}

function queryParams(url: string): FormParams {
  try {
    return formParams(Buffer.from(new URL(url).search.slice(1)));
  } catch (err) {
    throw malformedPayload('twilio', 'came with an unreadable URL', err);
  }
}

/** A form field's first value. */
export function one(params: FormParams, key: string): string | undefined {
  const value = params[key];
  return Array.isArray(value) ? value[0] : value;
}
