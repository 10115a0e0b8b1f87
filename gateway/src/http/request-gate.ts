import type { Logger } from '@switchboard/runtime';
import type { Listener } from './adapter.js';
import { BODYLESS, shuttingDown, STARTING, tooLarge } from './answers.js';
import { peerIsClient, type ClientAddress } from './client-address.js';
import { AddressCounts, DEFAULT_CONNECTION_LIMITS, tooManyConnections, tooSlow, type ConnectionLimits } from './connection-limits.js';
import { errorResult } from './errors.js';
import type { HttpRequest, HttpResult } from './types.js';

/**
 * How an adapter feeds a request body: every chunk (a copy, where the socket reuses its memory),
 * then the end. Returns a function that stops the feeding; chunks after it are ignored anyway.
 */
export type BodySource = (onChunk: (chunk: Buffer) => void, onEnd: () => void) => () => void;

/** A body that read to its end, or why it did not. */
export type BodyOutcome = Buffer | 'too large' | 'too slow';

/** A source with no body: it ends at once. */
export const NO_BODY: BodySource = (_onChunk, onEnd) => {
  onEnd();
  return () => undefined;
};

/**
 * Reads a body from `source` within `limit` bytes and `timeoutMs`, and calls `done` once with it,
 * or with why it stopped. Returns a function that stops reading (and the time-out) without calling `done`.
 */
export function collectBody(source: BodySource, limit: number, timeoutMs: number, done: (outcome: BodyOutcome) => void): () => void {
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  let stopSource: (() => void) | undefined;
  const stop = () => {
    settled = true;
    clearTimeout(timer);
    stopSource?.();
  };
  const settle = (outcome: BodyOutcome) => {
    if (settled) return;
    stop();
    done(outcome);
  };
  const timer = Number.isFinite(timeoutMs) ? setTimeout(() => settle('too slow'), timeoutMs).unref() : undefined;
  stopSource = source(
    (chunk) => {
      if (settled) return;
      size += chunk.byteLength;
      if (size > limit) settle('too large');
      else chunks.push(chunk);
    },
    () => settle(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)),
  );
  if (settled) stopSource();
  return stop;
}

/**
 * One plain request as an adapter hands it to the gate: the copied head, and the three things the
 * gate needs from its socket. The adapter only translates; every decision is the gate's.
 */
export interface GateRequest {
  /** Upper case. */
  readonly method: string;
  /** Without the query string. */
  readonly path: string;
  /** Without the leading `?`. */
  readonly queryString: string;
  /** Lower-case names; repeats joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** The socket's peer address, IPv4 without `::ffff:`. */
  readonly peer: string;
  /** Writes one complete answer. The gate calls it at most once, and never after `onGone`'s listener ran. */
  answer(result: HttpResult, closeConnection: boolean): void;
  /** Registers the one listener for the client going away before the answer was written. */
  onGone(listener: () => void): void;
  readonly body: BodySource;
}

/** An answer to a request the gate refuses, and whether the connection must close after it. */
export interface Refusal {
  readonly result: HttpResult;
  readonly closeConnection: boolean;
}

export interface RequestGateOptions {
  /** Answer every request 503 `starting` until `ready()`. */
  starting?: boolean;
  limits?: ConnectionLimits;
  clientAddress?: ClientAddress;
  logger: Logger;
}

/** The app as the gate uses it. */
export interface GatedApp {
  bodyLimit(method: string, path: string): number;
  handle(request: HttpRequest): Promise<HttpResult>;
}

/**
 * The request lifecycle every HTTP adapter shares, socket-free: 503 `starting` until ready, 503
 * `shutting down` while draining, requests in flight counted and waited for (within a bound) on
 * close, connections counted per peer address, the body limit (413) and the body's time-out (408).
 * An adapter translates its socket into a {@link GateRequest} and asks the gate about socket routes
 * and upgrades with {@link RequestGate.refusal}.
 */
export class RequestGate {
  readonly limits: ConnectionLimits;
  readonly clientAddress: ClientAddress;
  readonly #app: GatedApp;
  readonly #logger: Logger;
  readonly #addresses: AddressCounts;
  #starting: boolean;
  #draining = false;
  #inFlight = 0;
  #idle: (() => void) | undefined;
  /** The requests being handled now, each told when its client goes or the gate drains. */
  readonly #handling = new Set<AbortController>();

  constructor(app: GatedApp, options: RequestGateOptions) {
    this.#app = app;
    this.#logger = options.logger;
    this.limits = options.limits ?? DEFAULT_CONNECTION_LIMITS;
    this.clientAddress = options.clientAddress ?? peerIsClient;
    this.#addresses = new AddressCounts(this.limits.maxConnectionsPerAddress);
    this.#starting = options.starting === true;
  }

  /** Requests of the app being read or handled now (streams and sockets are not counted). */
  get inFlight(): number {
    return this.#inFlight;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Ends the start-up window. */
  ready(): void {
    this.#starting = false;
  }

  /**
   * The answer to a new exchange of any kind (plain, streamed, WebSocket upgrade) that may not start
   * now: 503 `starting` (the connection closes when a body is left unread) or 503 shutting down
   * (it closes). Undefined when it may start.
   */
  refusal(method: string): Refusal | undefined {
    if (this.#starting) return { result: STARTING, closeConnection: !BODYLESS.has(method) };
    if (this.#draining) return { result: shuttingDown(), closeConnection: true };
    return undefined;
  }

  /** Counts one more connection (or exchange) from `peer`; the refusal when the peer is at the cap. */
  admitAddress(peer: string): Refusal | undefined {
    if (this.#addresses.admit(peer)) return undefined;
    return { result: tooManyConnections(this.limits.maxConnectionsPerAddress), closeConnection: true };
  }

  /** One connection (or exchange) admitted for `peer` ended. */
  releaseAddress(peer: string): void {
    this.#addresses.release(peer);
  }

  /** The client's address for a request from `peer` (TRUSTED_PROXIES). */
  remoteAddress(peer: string, headers: Readonly<Record<string, string>>): string {
    return this.clientAddress(peer, headers['x-forwarded-for']);
  }

  /**
   * Serves one plain request through the app: refused while starting or draining, counted in flight
   * (and, with `holdsAddress`, against its peer's address) until answered or gone, its body read
   * within the route's limit and the request time-out. Call it synchronously in the socket's handler.
   */
  serve(request: GateRequest, holdsAddress: boolean): void {
    const { method, path, queryString, headers } = request;
    let answered = false;
    const answer = (result: HttpResult, closeConnection: boolean) => {
      if (answered) return;
      answered = true;
      request.answer(result, closeConnection);
    };
    let counted = false;
    let reading = true;
    let stopReading: (() => void) | undefined;
    const handling = new AbortController();
    const release = () => {
      stopReading?.();
      this.#handling.delete(handling);
      if (!counted) return;
      counted = false;
      if (holdsAddress) this.#addresses.release(request.peer);
      this.#inFlight--;
      if (this.#inFlight === 0) this.#idle?.();
    };
    request.onGone(() => {
      // node:http reports every response's close, the answered ones too: only a client gone before its
      // answer stops the handler (an abort builds a DOMException: 9 % of a /health request's CPU).
      if (answered) return;
      answered = true;
      handling.abort();
      // Gone while the body is still arriving ends the exchange; once dispatched, the handler's end releases it.
      if (reading) release();
    });
    const refused = this.refusal(method) ?? (holdsAddress ? this.admitAddress(request.peer) : undefined);
    if (refused) {
      answer(refused.result, refused.closeConnection);
      return;
    }
    this.#inFlight++;
    counted = true;
    const limit = this.#app.bodyLimit(method, path);
    const declared = Number(headers['content-length'] ?? 0);
    if (declared > limit) {
      answer(tooLarge(limit), true);
      release();
      return;
    }
    const dispatch = (rawBody: Buffer) => {
      reading = false;
      const remoteAddress = this.remoteAddress(request.peer, headers);
      this.#handling.add(handling);
      this.#app
        .handle({ method, path, queryString, headers, rawBody, remoteAddress, signal: handling.signal })
        .then((result) => answer(result, false))
        .catch((err: unknown) => {
          this.#logger.error({ err }, 'unhandled gateway error');
          answer(errorResult(err), false);
        })
        .finally(release);
    };
    if (BODYLESS.has(method) && !declared && headers['transfer-encoding'] === undefined) {
      dispatch(Buffer.alloc(0));
      return;
    }
    stopReading = collectBody(request.body, limit, this.limits.requestTimeoutMs, (body) => {
      if (Buffer.isBuffer(body)) {
        dispatch(body);
        return;
      }
      answer(body === 'too large' ? tooLarge(limit) : tooSlow(), true);
      release();
    });
  }

  /**
   * The listener of a port behind this gate: closing stops accepting connections and drains the
   * gate, then `cut` ends whatever is left (connections, streams, sockets).
   */
  listener(port: number, close: { stopAccepting(): void; cut(): void | Promise<void> }): Listener {
    const inFlight = () => this.#inFlight;
    return {
      port,
      get inFlight() {
        return inFlight();
      },
      ready: () => this.ready(),
      close: async (graceMs) => {
        const drained = this.drain(graceMs);
        close.stopAccepting();
        await drained;
        await close.cut();
      },
    };
  }

  /**
   * Starts draining: every new exchange is refused from now on. Resolves once no request is in
   * flight, or after `graceMs`, whichever comes first; the adapter then cuts what is left.
   */
  async drain(graceMs: number): Promise<void> {
    this.#draining = true;
    // A request that waits (a long poll) answers now rather than holding the drain.
    for (const handling of this.#handling) handling.abort();
    if (this.#inFlight === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      this.#idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
