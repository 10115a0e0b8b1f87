import type { RuntimeEvents } from '../events.js';
import type { Logger } from '../logger.js';
import { newId } from '../ids.js';
import { disablesUrl, type AttemptOutcome, type CallbackEventRecord, type CallbackEventState } from '../store/repositories/callbacks.js';
import type { Store } from '../store/store.js';
import type { CallbackFetch } from './callback-address.js';
import { accepted, attemptCallback, excerpt } from './callback-client.js';

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
