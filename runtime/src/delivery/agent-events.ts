import type { Channel } from '@switchboard/sdk';
import { Webhook } from 'standardwebhooks';
import type { RuntimeEvents } from '../events.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { AgentEvent } from '../protocol/live.js';
import { disablesUrl, type AttemptOutcome, type CallbackEventRecord, type CallbackEventState } from '../store/repositories/callbacks.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { Store } from '../store/store.js';
import { activeLink, activeTraceparent, contextFromHeaders, inSpan, inTrace, sendContextOf, SpanKind, SpanStatusCode, tracing, type Context } from '../tracing.js';
import type { CallbackFetch } from './callback-address.js';

/*
 * An agent's events on their way to it: what an event is (its id, the message it brings), one signed
 * post of it to the agent's callback URL, and one turn of a kept event's retry schedule. The delivery
 * chain (delivery-service.ts) chooses between the live session, these posts and a dead letter.
 */

/** The event's shape lives with the wire it crosses (protocol/live.ts). */
export type { AgentEvent };

/** The contract's InboundEvent: a message a person sent the agent. */
export interface InboundMessageData {
  readonly messageId: string;
  readonly channel: Channel;
  readonly from: string;
  readonly to: string;
  readonly subject?: string;
  readonly body: string;
  readonly html?: string;
  readonly mediaUrls: readonly string[];
  readonly externalId: string | null;
  readonly receivedAt: string;
}

/** A delivery receipt for a message the agent sent. */
export interface MessageStatusData {
  readonly messageId: string;
  readonly channel: Channel;
  readonly externalId: string;
  readonly status: string;
  readonly cost: number | null;
  readonly errorCode?: string;
  /** Why the status is `unknown`: no final status came from the provider within the bound. */
  readonly reason?: string;
}

/** An event with a new id, or with `id` when a redelivery must carry the same one. */
export function agentEvent<T>(type: AgentEvent['type'], agentId: string, data: T, id: string = newId('evt')): AgentEvent<T> {
  return { id, type, agentId, createdAt: new Date().toISOString(), data };
}

/**
 * The event id of a stored message's delivery, the same on every attempt: delivery is at least once
 * (a node killed after the agent took an event and before recording it hands it to another node), and
 * the Standard Webhooks `webhook-id` lets the agent drop the repeat.
 */
export function deliveryEventId(messageId: string): string {
  return `evt_${messageId.replace(/^msg_/, '')}`;
}

export function inboundData(message: MessageRecord): InboundMessageData {
  return {
    messageId: message.id,
    channel: message.channel,
    from: message.from,
    to: message.to,
    ...(message.subject === null ? {} : { subject: message.subject }),
    body: message.body,
    ...(message.html === null ? {} : { html: message.html }),
    mediaUrls: message.mediaUrls,
    externalId: message.externalId,
    receivedAt: message.createdAt,
  };
}

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

export interface CallbackPolicy {
  /** The waits of the retry schedule (settings/retry-schedule.ts): entry i before attempt i + 1; its length is the number of attempts. */
  scheduleMs: readonly number[];
  /** How long one attempt may take. */
  timeoutMs: number;
  /** An endpoint failing without a success for this long is disabled (five days by default). */
  disableAfterMs: number;
  /** The clock the schedule and the disable are judged by (tests move it). */
  now?: () => number;
  /**
   * A wait longer than this is not held in the work queue (default 1 min): the event is parked in the
   * store and queued again by the parking sweep when nearly due. JetStream counts an item waiting
   * for a delayed redelivery against the consumer's ack-pending limit (1000), so hours-long waits
   * held there would stall every delivery behind a few hundred failing ones.
   */
  parkAfterMs?: number;
  /** How often each process looks for parked events nearly due (default 30 s; less than `parkAfterMs`). */
  parkSweepMs?: number;
  /** How posts reach callback URLs: callbackFetch of the settings, which may refuse internal addresses (default: the global fetch). */
  fetch?: CallbackFetch;
}

/** Where to post: the agent's callback URL and its signing secret, opened. */
export interface CallbackTarget {
  readonly url: string;
  readonly secret: string;
}

/** What became of an event's turn: delivered; to be tried again after `delayMs`; or over without a delivery (the reason says why). */
export type CallbackTurn =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'later'; readonly delayMs: number; readonly reason: string }
  | { readonly kind: 'over'; readonly attempts: number; readonly reason: string };

/**
 * One turn of a kept event with its callback URL: when the event is due, one post, recorded in the
 * delivery log with the event's new state and the endpoint's run of failures, in one transaction. The
 * schedule's position is the stored attempt count and the time of the last attempt, so it survives a
 * restart and a cluster node, and a shorter schedule set meanwhile applies at once. A 410 or
 * `webhook-delivery: abort-message` ends it at once; so does an endpoint disabled for this URL.
 */
export class CallbackSender {
  readonly #now: () => number;

  constructor(
    private readonly store: Store,
    private readonly policy: CallbackPolicy,
    private readonly logger: Logger,
    /** Where each post's outcome is reported (the metrics). */
    private readonly events?: Pick<RuntimeEvents, 'emit'>,
  ) {
    this.#now = policy.now ?? Date.now;
  }

  /** The policy's clock. */
  now(): number {
    return this.#now();
  }

  async turn(record: CallbackEventRecord, target: CallbackTarget): Promise<CallbackTurn> {
    const { scheduleMs } = this.policy;
    if (record.state === 'delivered') return { kind: 'delivered' };
    if (record.state !== 'pending') return { kind: 'over', attempts: record.attempts, reason: `callback ${record.state}` };
    const endpoint = await this.store.callbacks.endpoint(record.agentId);
    if (disablesUrl(endpoint, target.url)) {
      await this.store.callbacks.settle(record.eventId, 'skipped');
      return { kind: 'over', attempts: record.attempts, reason: `callback endpoint ${target.url} disabled since ${endpoint!.disabledAt}` };
    }
    if (record.attempts >= scheduleMs.length) {
      await this.store.callbacks.settle(record.eventId, 'failed');
      return { kind: 'over', attempts: record.attempts, reason: 'no attempt left in the retry schedule' };
    }
    const due = Date.parse(record.lastAttemptAt ?? record.createdAt) + scheduleMs[record.attempts]!;
    const now = this.#now();
    if (due > now) return { kind: 'later', delayMs: due - now, reason: `attempt ${record.attempts + 1} of ${record.eventId} is due later` };

    const attempt = record.attempts + 1;
    const answer = await attemptCallback(this.policy.fetch ?? fetch, target.url, target.secret, record.event, this.policy.timeoutMs);
    const outcome: AttemptOutcome = accepted(answer) ? 'delivered' : answer.permanent ? 'refused' : attempt >= scheduleMs.length ? 'failed' : 'retrying';
    const state: CallbackEventState = outcome === 'retrying' ? 'pending' : outcome;
    const at = new Date(this.#now()).toISOString();
    const endpointAfter = await this.store.callbacks.recordAttempt(
      {
        id: newId('cba'),
        eventId: record.eventId,
        agentId: record.agentId,
        url: target.url,
        attempt,
        statusCode: answer.status ?? null,
        error: answer.error ?? null,
        latencyMs: answer.latencyMs,
        responseExcerpt: excerpt(answer.body),
        outcome,
        createdAt: at,
      },
      state,
      new Date(this.#now() - this.policy.disableAfterMs),
    );
    this.events?.emit('callbackAttempt', { outcome });
    if (outcome === 'delivered') return { kind: 'delivered' };
    const reason = answer.status === undefined ? `callback ${target.url} could not be reached: ${answer.error}` : `callback ${target.url} answered HTTP ${answer.status}`;
    if (endpointAfter.disabledAt === at) {
      this.logger.warn({ agentId: record.agentId, url: target.url, failingSince: endpointAfter.failingSince }, 'callback endpoint disabled after failing without a success');
    }
    if (outcome === 'refused') return { kind: 'over', attempts: attempt, reason: `${reason}; refused for good, not retried` };
    if (outcome === 'failed') return { kind: 'over', attempts: attempt, reason };
    if (endpointAfter.disabledAt !== null) {
      await this.store.callbacks.settle(record.eventId, 'skipped');
      return { kind: 'over', attempts: attempt, reason: `${reason}; the endpoint is disabled` };
    }
    return { kind: 'later', delayMs: scheduleMs[attempt]!, reason };
  }
}
