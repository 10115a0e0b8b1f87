import { randomUUID } from 'node:crypto';
import twilio from 'twilio';
import type { WebhookTampering } from '../inbound-types.js';
import type { SimCall } from '../types.js';
import { deliverWebhook, type WebhookAnswer } from '../webhook-delivery.js';
import { API_VERSION, countryOf } from './twilio-format.js';
import { postTwilioWebhook } from './twilio-webhook.js';

/** What the simulated carrier bills a minute of call, in USD (Twilio's US list prices). */
export const CALL_PRICE_PER_MINUTE = { inbound: 0.0085, 'outbound-api': 0.014 } as const;

/** Whole seconds between answer and hang-up, as the Call resource and CallDuration report them. */
export function callDurationSeconds(call: Pick<SimCall, 'startTime' | 'endTime'>): number {
  return call.startTime && call.endTime ? Math.round((call.endTime.getTime() - call.startTime.getTime()) / 1000) : 0;
}

/** Twilio's price string for a call: negative, per started minute of an answered call (`-0.01400`). */
export function callPrice(call: Pick<SimCall, 'direction' | 'startTime' | 'endTime'>): string {
  if (!call.startTime) return '0.00000';
  const minutes = Math.max(1, Math.ceil(callDurationSeconds(call) / 60));
  return (-CALL_PRICE_PER_MINUTE[call.direction] * minutes).toFixed(5);
}

/** The parameters Twilio sends with every voice request about a call (webhook, TwiML fetch, status callback). */
export function callRequestParams(call: SimCall, callStatus: string): Record<string, string> {
  return {
    AccountSid: call.accountSid,
    ApiVersion: API_VERSION,
    CallSid: call.sid,
    CallStatus: callStatus,
    Called: call.to,
    CalledCountry: countryOf(call.to),
    Caller: call.from,
    CallerCountry: countryOf(call.from),
    Direction: call.direction,
    From: call.from,
    FromCountry: countryOf(call.from),
    To: call.to,
    ToCountry: countryOf(call.to),
  };
}

/**
 * Sends a signed voice request as Twilio does: POST with the parameters form-encoded and signed
 * over the URL and sorted parameters, or GET with them in the query string and signed over that
 * full URL. `fetchUrl` is where the request really goes (a rewritten URL); the signature covers `url`.
 */
export async function sendCallWebhook(
  authToken: string,
  url: string,
  method: string,
  params: Record<string, string>,
  tampering: WebhookTampering = {},
  fetchUrl = url,
): Promise<WebhookAnswer> {
  if (method.toUpperCase() !== 'GET') {
    if (fetchUrl === url) return postTwilioWebhook(authToken, url, params, tampering, 'CallStatus');
    const signature = twilio.getExpectedTwilioSignature(authToken, url, params);
    const sent = tampering.tamper ? { ...params, CallStatus: `${params['CallStatus'] ?? ''} [tampered]` } : params;
    return deliverWebhook(fetchUrl, webhookHeaders(signature, tampering, true), new URLSearchParams(sent).toString());
  }
  const withQuery = (base: string) => `${base}${base.includes('?') ? '&' : '?'}${new URLSearchParams(params).toString()}`;
  const signedUrl = withQuery(url);
  const signature = twilio.getExpectedTwilioSignature(authToken, tampering.tamper ? `${signedUrl}&tampered=1` : signedUrl, {});
  const res = await fetch(withQuery(fetchUrl), { headers: webhookHeaders(signature, tampering, false), redirect: 'manual', signal: AbortSignal.timeout(15_000) });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

function webhookHeaders(signature: string, tampering: WebhookTampering, form: boolean): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': 'TwilioProxy/1.1', 'i-twilio-idempotency-token': randomUUID() };
  if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
  if (!tampering.omitSignature) headers['x-twilio-signature'] = signature;
  return headers;
}

/** Status callback events a call asked for; `completed` alone when none (Twilio's default). Accepts space-separated lists too. */
export function requestedCallEvents(call: Pick<SimCall, 'statusCallbackEvents'>): Set<string> {
  const events = call.statusCallbackEvents.flatMap((e) => e.split(/[\s,]+/)).filter(Boolean);
  return new Set(events.length > 0 ? events.map((e) => e.toLowerCase()) : ['completed']);
}
