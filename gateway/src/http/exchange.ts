import { encodeResult } from './answers.js';
import { tooSlow } from './connection-limits.js';
import { collectBody, type BodySource } from './request-gate.js';
import type { HttpResult } from './types.js';

/** How an exchange finished: answered or ended by us, gone on the client's side, or cut off. */
export type ExchangeEnd = 'ended' | 'aborted' | 'overflow' | 'destroyed';

/** Thrown (as a rejection) for writes the stream could not take or could not confirm. */
export class StreamClosedError extends Error {
  readonly code = 'STREAM_CLOSED';
  constructor(readonly reason: ExchangeEnd) {
    super(
      reason === 'overflow'
        ? 'The client did not read fast enough; it was disconnected before this was written.'
        : 'The stream closed before this was written.',
    );
    this.name = 'StreamClosedError';
  }
}

/**
 * One HTTP request and its response for routes that stream (SSE, Streamable HTTP), the same on
 * every adapter. The request is a plain copy; nothing touches the response after the client went
 * away or after it was ended. It answers in one go (`answer`) or streams (`open`, `write`, `end`);
 * a streamed write resolves once its bytes have left user space, and the client is cut off when
 * more than the route's `maxBufferedBytes` wait there.
 */
export interface Exchange {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  /** Raw query string without the leading `?`. */
  readonly queryString: string;
  readonly query: URLSearchParams;
  /** Lower-case names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly remoteAddress: string;
  /** True while a streamed response can take writes. */
  readonly streaming: boolean;
  /** Why the exchange finished, once it has. */
  readonly ended: ExchangeEnd | undefined;
  /** Bytes written but not yet confirmed to have left user space. */
  readonly bufferedBytes: number;
  /** Called with the status when the response head is written (for request metrics). */
  onHead: ((status: number) => void) | undefined;
  /** Runs once when the exchange finishes, however it finishes; at once if it already has. */
  onEnd(listener: (how: ExchangeEnd) => void): void;
  /**
   * Reads the request body up to `limit` bytes. Resolves undefined when it is larger (the caller
   * answers 413); rejects when the client goes away first. Start it inside the route handler.
   */
  readBody(limit: number): Promise<Buffer | undefined>;
  /** Sends a complete response. False when the exchange already answered or the client is gone. */
  answer(status: number, headers: Readonly<Record<string, string>>, body?: string | Uint8Array, closeConnection?: boolean): boolean;
  /** Starts a streamed response; `first` must not be empty. False when already answered or the client is gone. */
  open(status: number, headers: Readonly<Record<string, string>>, first: string): boolean;
  /** Writes a chunk of a streamed response; resolves once it left user space, rejects with StreamClosedError otherwise. */
  write(chunk: string | Uint8Array): Promise<void>;
  /** Resolves once every byte written so far has left user space; rejects if the stream closes first. */
  flushed(): Promise<void>;
  /** Ends a streamed response cleanly, or answers an unanswered exchange with `status`. */
  end(status?: number): void;
  /** Drops the connection at once. */
  destroy(): void;
}

/** Answers an exchange with a result (the contract's error body, say); false as `answer` is. */
export function answerResult(exchange: Exchange, result: HttpResult, closeConnection: boolean): boolean {
  const { headers, payload } = encodeResult(result);
  return exchange.answer(result.status, headers, payload, closeConnection);
}

/**
 * `Exchange.readBody` on every adapter: the body from `source` within `limit` bytes (undefined when
 * larger); one that takes longer than `timeoutMs` is answered 408 (or, once a stream has opened, cut
 * off). Rejects once the exchange ends before the body is read.
 */
export function readExchangeBody(exchange: Exchange, source: BodySource, limit: number, timeoutMs: number): Promise<Buffer | undefined> {
  if (exchange.ended) return Promise.reject(new StreamClosedError(exchange.ended));
  const body = new Promise<Buffer | undefined>((resolve, reject) => {
    let settled = false;
    const stop = collectBody(source, limit, timeoutMs, (outcome) => {
      // Answering a slow body ends the exchange, which rejects the read below.
      if (outcome === 'too slow') {
        if (!answerResult(exchange, tooSlow(), true)) exchange.destroy();
        return;
      }
      settled = true;
      resolve(outcome === 'too large' ? undefined : outcome);
    });
    exchange.onEnd((how) => {
      stop();
      if (!settled) reject(new StreamClosedError(how));
      settled = true;
    });
  });
  // The caller may still be authenticating when the client goes away; that must not be an unhandled rejection.
  body.catch(() => undefined);
  return body;
}

/** A request head as an exchange copies it from its socket. */
export interface ExchangeHead {
  readonly method: string;
  readonly path: string;
  readonly queryString: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly remoteAddress: string;
}

/**
 * What every adapter's exchange shares: the copied head, reading the body (limit and time-out),
 * and finishing once, telling every end listener. A subclass writes to its socket and says, in
 * `settleWrites`, what a finish does to the writes still waiting.
 */
export abstract class ExchangeBase implements Exchange {
  readonly method: string;
  readonly path: string;
  readonly queryString: string;
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string>>;
  readonly remoteAddress: string;
  onHead: ((status: number) => void) | undefined;
  protected state: 'new' | 'streaming' | 'done' = 'new';
  readonly #requestTimeoutMs: number;
  readonly #endListeners: Array<(how: ExchangeEnd) => void> = [];
  #ended: ExchangeEnd | undefined;

  constructor(head: ExchangeHead, requestTimeoutMs: number) {
    this.method = head.method;
    this.path = head.path;
    this.queryString = head.queryString;
    this.query = new URLSearchParams(head.queryString);
    this.headers = head.headers;
    this.remoteAddress = head.remoteAddress;
    this.#requestTimeoutMs = requestTimeoutMs;
  }

  get streaming(): boolean {
    return this.state === 'streaming';
  }

  get ended(): ExchangeEnd | undefined {
    return this.#ended;
  }

  onEnd(listener: (how: ExchangeEnd) => void): void {
    if (this.#ended) listener(this.#ended);
    else this.#endListeners.push(listener);
  }

  readBody(limit: number): Promise<Buffer | undefined> {
    return readExchangeBody(this, this.body(), limit, this.#requestTimeoutMs);
  }

  abstract readonly bufferedBytes: number;
  abstract answer(status: number, headers: Readonly<Record<string, string>>, body?: string | Uint8Array, closeConnection?: boolean): boolean;
  abstract open(status: number, headers: Readonly<Record<string, string>>, first: string): boolean;
  abstract write(chunk: string | Uint8Array): Promise<void>;
  abstract flushed(): Promise<void>;
  abstract end(status?: number): void;
  abstract destroy(): void;

  /** The request body, as the socket feeds it. */
  protected abstract body(): BodySource;

  /** What finishing with `how` does to writes still waiting for confirmation. */
  protected abstract settleWrites(how: ExchangeEnd): void;

  /** Finishes the exchange once: later calls do nothing. */
  protected finish(how: ExchangeEnd): void {
    if (this.#ended) return;
    this.#ended = how;
    this.state = 'done';
    this.settleWrites(how);
    for (const listener of this.#endListeners.splice(0)) listener(how);
  }
}
