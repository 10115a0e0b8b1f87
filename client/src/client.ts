import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import { isSwitchboardError, isTransient, unwrap } from './errors.js';
import { readInbox, type InboxOptions } from './inbox.js';
import { waitForReply, type WaitForReplyOptions } from './reply.js';
import { pause, retryDelayMs } from './retry.js';
import type { paths } from './schema.js';
import type { InboxEntry, ReplyAnswer, SendMessageBody, SendMessageResult } from './types.js';

/** How to reach a Switchboard server. */
export interface SwitchboardClientOptions {
  /** The server's address, e.g. `https://switchboard.example.com` (no `/api/v1`). */
  baseUrl: string;
  /** A bearer token (client, team or orchestrator token, or an OAuth access token), or a function that answers the current one. */
  token?: string | (() => string | Promise<string>);
  /** Another fetch (tests, proxies); default: the global fetch. */
  fetch?: (input: Request) => Promise<Response>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

/** Options of `sendMessage`. */
export interface SendOptions {
  /**
   * The `Idempotency-Key` header: a repeat with the same key returns the first result and sends nothing again.
   * Default: a new random key per call, kept across this call's own retries. Pass your own to retry safely
   * after a crash (store it with the work it belongs to).
   */
  idempotencyKey?: string;
  /** Tries after the first when no answer came, or 429, 5xx, or 409 CONFLICT with Retry-After while the first try with the key still runs (default 2). */
  retries?: number;
  signal?: AbortSignal;
}

/**
 * The typed client: `GET`, `POST`, `PUT`… for every route of the OpenAPI document (paths, parameters,
 * bodies and answers typed from it), plus the conveniences an agent needs on top.
 */
export interface SwitchboardClient extends Client<paths> {
  /** Sends a message with an idempotency key, retrying with the same key where that is safe; throws SwitchboardApiError. */
  sendMessage(body: SendMessageBody, options?: SendOptions): Promise<SendMessageResult>;
  /** The agent's inbox as an async iterator following the cursor; with `follow`, live. */
  inbox(options?: InboxOptions): AsyncGenerator<InboxEntry, void, undefined>;
  /** Waits for the counterpart's reply in a conversation over the REST long poll. */
  waitForReply(conversationId: string, options?: WaitForReplyOptions): Promise<ReplyAnswer>;
}

/** A new random idempotency key. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/** A client for the Switchboard REST API at `options.baseUrl`. */
export function createClient(options: SwitchboardClientOptions): SwitchboardClient {
  const api = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  const { token } = options;
  if (token !== undefined) {
    const bearer: Middleware = {
      async onRequest({ request }) {
        if (!request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${typeof token === 'function' ? await token() : token}`);
        return request;
      },
    };
    api.use(bearer);
  }

  async function sendMessage(body: SendMessageBody, send: SendOptions = {}): Promise<SendMessageResult> {
    const key = send.idempotencyKey ?? newIdempotencyKey();
    const retries = send.retries ?? 2;
    for (let attempt = 1; ; attempt++) {
      try {
        return unwrap(await api.POST('/api/v1/send-message', { body, params: { header: { 'Idempotency-Key': key } }, ...(send.signal ? { signal: send.signal } : {}) }));
      } catch (err) {
        // With the key, a repeat cannot send twice: an answer that never came, or one still being made (409 with
        // Retry-After; a 409 without it is the key used for another request), is asked again.
        const again = isTransient(err) || (isSwitchboardError(err, 'CONFLICT') && err.retryAfterSeconds !== undefined);
        if (!again || attempt > retries || send.signal?.aborted) throw err;
        if (!(await pause(retryDelayMs(err, attempt, 5000), send.signal))) throw err;
      }
    }
  }

  return {
    ...api,
    sendMessage,
    inbox: (inbox) => readInbox(api, inbox),
    waitForReply: (conversationId, wait) => waitForReply(api, conversationId, wait),
  };
}
