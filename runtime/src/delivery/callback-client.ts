import { Webhook } from 'standardwebhooks';
import type { AgentEvent } from './events.js';

/** Why a callback attempt failed. */
export class CallbackError extends Error {}

/**
 * Posts an event to an agent's callback URL, signed per the Standard Webhooks scheme with the
 * agent's secret, so any Standard Webhooks library verifies it. A non-2xx answer or a time-out throws.
 * Returns the response body (a `call.turn` answer carries the agent's reply); `onResponse` runs when its headers arrive.
 */
export async function postCallback(url: string, secret: string, event: AgentEvent, timeoutMs: number, onResponse?: () => void): Promise<string> {
  const payload = JSON.stringify(event);
  const timestamp = new Date();
  const signature = new Webhook(secret).sign(event.id, timestamp, payload);
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Switchboard-Webhooks/1',
        'webhook-id': event.id,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body: payload,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (err) {
    throw new CallbackError(`callback ${url} could not be reached: ${err instanceof Error ? err.message : String(err)}`);
  }
  onResponse?.();
  const text = await res.text().catch(() => '');
  if (res.status < 200 || res.status >= 300) throw new CallbackError(`callback ${url} answered HTTP ${res.status}`);
  return text;
}
