import type { Client } from 'openapi-fetch';
import { isTransient, unwrap } from './errors.js';
import { pause, retryDelayMs } from './retry.js';
import type { paths } from './schema.js';
import type { InboxEntry } from './types.js';

/** What `client.inbox()` reads, and how it follows. */
export interface InboxOptions {
  /** The agent (a client token's own agent when absent). */
  agentId?: string;
  /** Start after this cursor; absent: after the agent's acknowledged cursor (every unacknowledged entry). */
  after?: number;
  /** Only entries of this channel. */
  channel?: 'sms' | 'email' | 'whatsapp' | 'line' | 'voice';
  /** Only entries of this conversation. */
  conversationId?: string;
  /** Entries per request (1 to 500, default 100). */
  pageSize?: number;
  /** Keep reading when caught up, for new entries (until `signal` aborts); false (default): end when caught up. */
  follow?: boolean;
  /** When following: the pause between reads once caught up, in ms (default 1000). */
  pollIntervalMs?: number;
  /** When following: the longest pause before reading again after a failure, in ms (default 5000). */
  maxRetryDelayMs?: number;
  /** Ends the iteration (no error) when aborted. */
  signal?: AbortSignal;
  /**
   * When following, a read that got no answer, 429 or a 5xx is tried again from the same cursor, so a server
   * that goes away and comes back costs no entry; this is told of each such failure first.
   */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/**
 * The agent's inbox entries in cursor order, page after page, following `nextCursor`. Reading acknowledges
 * nothing: acknowledge with `POST /api/v1/inbox/ack` once entries are handled.
 */
export async function* readInbox(api: Client<paths>, options: InboxOptions = {}): AsyncGenerator<InboxEntry, void, undefined> {
  const { signal, follow = false, pollIntervalMs = 1000, maxRetryDelayMs = 5000 } = options;
  const filters = {
    ...(options.agentId !== undefined ? { agentId: options.agentId } : {}),
    ...(options.channel !== undefined ? { channel: options.channel } : {}),
    ...(options.conversationId !== undefined ? { conversationId: options.conversationId } : {}),
    limit: options.pageSize ?? 100,
  };
  let after = options.after;
  let failures = 0;
  while (!signal?.aborted) {
    let page;
    try {
      page = unwrap(await api.GET('/api/v1/inbox', { params: { query: { ...filters, ...(after !== undefined ? { after } : {}) } }, ...(signal ? { signal } : {}) }));
      failures = 0;
    } catch (err) {
      if (signal?.aborted) return;
      if (!follow || !isTransient(err)) throw err;
      failures += 1;
      const delay = retryDelayMs(err, failures, maxRetryDelayMs);
      options.onRetry?.(err, failures, delay);
      if (!(await pause(delay, signal))) return;
      continue;
    }
    for (const entry of page.entries) {
      after = entry.cursor;
      yield entry;
      if (signal?.aborted) return;
    }
    after = page.nextCursor;
    if (page.hasMore) continue;
    if (!follow || !(await pause(pollIntervalMs, signal))) return;
  }
}
