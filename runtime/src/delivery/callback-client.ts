import { Webhook } from 'standardwebhooks';
import type { CallbackFetch } from './callback-address.js';
import type { AgentEvent } from './events.js';
import { activeLink, activeTraceparent, contextFromHeaders, inSpan, inTrace, sendContextOf, SpanKind, SpanStatusCode, tracing, type Context } from '../tracing.js';

/** Why a callback attempt failed. */
export class CallbackError extends Error {}

/** The most of an answer's body the delivery log keeps. */
export const EXCERPT_BYTES = 512;

/** What one post of an event to a callback URL came to. */
export interface CallbackAnswer {
  /** The HTTP status; undefined when no answer came (see `error`). */
  readonly status?: number;
  /** Why no answer came: a network error, a refused redirect, the time-out. */
  readonly error?: string;
  readonly latencyMs: number;
  /** The answer's body (whole: a `call.turn` answer carries the agent's reply). */
  readonly body: string;
  /** The receiver refused the event for good: 410 Gone, or `webhook-delivery: abort-message` on a non-2xx answer. */
  readonly permanent: boolean;
}

/** Whether the answer is a 2xx. */
export function accepted(answer: CallbackAnswer): boolean {
  return answer.status !== undefined && answer.status >= 200 && answer.status < 300;
}

/** The start of a body for the delivery log: at most {@link EXCERPT_BYTES} bytes of UTF-8, never a split character. */
export function excerpt(body: string): string | null {
  if (body === '') return null;
  const bytes = Buffer.from(body, 'utf8');
  if (bytes.length <= EXCERPT_BYTES) return body;
  // A decoder drops a character cut in two as U+FFFD; strip it.
  return bytes.subarray(0, EXCERPT_BYTES).toString('utf8').replace(/\uFFFD$/, '');
}

/**
 * Posts an event to an agent's callback URL once, signed per the Standard Webhooks scheme with the
 * agent's secret, so any Standard Webhooks library verifies it, and tells what came of it without
 * throwing. `send` is the fetch that guards the addresses it may reach (see callbackFetch); `onResponse`
 * runs when the answer's headers arrive.
 */
export function attemptCallback(
  send: CallbackFetch,
  url: string,
  secret: string,
  event: AgentEvent,
  timeoutMs: number,
  onResponse?: () => void,
): Promise<CallbackAnswer> {
  if (!tracing.on) return post(send, url, secret, event, timeoutMs, onResponse, event.traceparent);
  // A message's status continues the trace of its send (linked to the receipt that brought it); other
  // events the active trace, else the agent's own trace context of a call.
  const messageId = event.type === 'message.status' ? (event.data as { messageId?: string } | null)?.messageId : undefined;
  const sent = messageId ? sendContextOf(messageId) : undefined;
  const parent: Context | undefined = sent ?? (inTrace() || !event.traceparent ? undefined : contextFromHeaders({ traceparent: event.traceparent }));
  const attributes = { 'http.request.method': 'POST', 'server.address': hostOf(url), 'switchboard.event': event.type, 'switchboard.agent_id': event.agentId };
  return inSpan(
    'callback POST',
    SpanKind.CLIENT,
    attributes,
    async (span) => {
      const answer = await post(send, url, secret, event, timeoutMs, onResponse, activeTraceparent() ?? event.traceparent);
      if (answer.status !== undefined) span.setAttribute('http.response.status_code', answer.status);
      if (!accepted(answer)) span.setStatus({ code: SpanStatusCode.ERROR, message: answer.error ?? `HTTP ${answer.status}` });
      return answer;
    },
    parent,
    sent ? activeLink() : undefined,
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

async function post(
  send: CallbackFetch,
  url: string,
  secret: string,
  event: AgentEvent,
  timeoutMs: number,
  onResponse: (() => void) | undefined,
  traceparent: string | undefined,
): Promise<CallbackAnswer> {
  const payload = JSON.stringify(event);
  const timestamp = new Date();
  const signature = new Webhook(secret).sign(event.id, timestamp, payload);
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  let res: Response;
  try {
    res = await send(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Switchboard-Webhooks/1',
        'webhook-id': event.id,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signature,
        // This post's span when traced; else the agent's own trace context, for the events of a call it placed with one.
        ...(traceparent ? { traceparent } : {}),
      },
      body: payload,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (err) {
    return { error: reason(err), latencyMs: latency(), body: '', permanent: false };
  }
  onResponse?.();
  const body = await res.text().catch(() => '');
  const ok = res.status >= 200 && res.status < 300;
  const permanent = !ok && (res.status === 410 || res.headers.get('webhook-delivery')?.trim().toLowerCase() === 'abort-message');
  return { status: res.status, latencyMs: latency(), body, permanent };
}

/**
 * One post that must succeed now (a voice turn waits for its answer): returns the answer's body; a
 * non-2xx answer or no answer throws.
 */
export async function postCallback(
  send: CallbackFetch,
  url: string,
  secret: string,
  event: AgentEvent,
  timeoutMs: number,
  onResponse?: () => void,
): Promise<string> {
  const answer = await attemptCallback(send, url, secret, event, timeoutMs, onResponse);
  if (answer.status === undefined) throw new CallbackError(`callback ${url} could not be reached: ${answer.error}`);
  if (!accepted(answer)) throw new CallbackError(`callback ${url} answered HTTP ${answer.status}`);
  return answer.body;
}

function reason(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `timed out: ${err.message}`;
  return `${err instanceof Error ? err.message : String(err)}${cause}`;
}
