import { STATUS_CODES } from 'node:http';
import type uWS from 'uWebSockets.js';
import { peerIsClient, type ClientAddress } from './client-address.js';
import { encodeResult } from './answers.js';
import { ExchangeBase, StreamClosedError, type ExchangeEnd } from './exchange.js';
import type { BodySource } from './request-gate.js';
import type { HttpResult } from './types.js';
import { WriteConfirmations } from './write-confirmations.js';

/**
 * An SSE comment: written while uWS holds bytes, because with an onWritable handler registered uWS
 * drains only on a write, and its return value is the only sign that the buffer emptied.
 */
const PROBE = ':\n\n';

/**
 * uWS closes a connection idle for 10 s, swept every 4 s, so after 8 to 12 s; a client that reuses it
 * as the sweep runs gets a reset, and a POST it cannot retry fails (a soak at 60 webhooks/s saw one in
 * 72,000). Announced on every answer: a client that reads the hint (node's agents with an idle
 * time-out, undici, Apache HttpClient) lets its idle connections go after at most 5 s, before any sweep.
 */
export const UWS_KEEP_ALIVE = 'timeout=5';

/** A uWS request's headers: lower-case names, repeats joined with `, `. Only inside its handler. */
export function uwsHeaders(req: uWS.HttpRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  req.forEach((name, value) => {
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  });
  return headers;
}

/** The socket's peer address, as uWS writes it. */
export function uwsPeer(res: uWS.HttpResponse): string {
  return Buffer.from(res.getRemoteAddressAsText()).toString();
}

/** A uWS request's body as a {@link BodySource}: chunks copied, since uWS reuses their memory. */
export function uwsBody(res: uWS.HttpResponse): BodySource {
  return (onChunk, onEnd) => {
    let stopped = false;
    res.onData((chunk, isLast) => {
      if (stopped) return;
      onChunk(Buffer.from(new Uint8Array(chunk).slice()));
      if (isLast && !stopped) onEnd();
    });
    return () => {
      stopped = true;
    };
  };
}

/** Writes a complete result on a uWS response that has not answered and whose client is still there. */
export function writeUws(res: uWS.HttpResponse, result: HttpResult, closeConnection: boolean): void {
  const { headers, payload } = encodeResult(result);
  res.cork(() => {
    res.writeStatus(`${result.status} ${STATUS_CODES[result.status] ?? ''}`);
    for (const name in headers) res.writeHeader(name, headers[name]!);
    if (!closeConnection) res.writeHeader('keep-alive', UWS_KEEP_ALIVE);
    res.end(payload, closeConnection);
  });
}

/**
 * One uWS request and its response, safe across aborts: the request is copied while uWS allows it,
 * and nothing touches the uWS response after the client went away or after it was ended.
 * It answers in one go (`answer`) or streams (`open`, `write`, `end`); a streamed write resolves
 * once its bytes have left user space, and the client is cut off when more than
 * `maxBufferedBytes` wait there.
 */
export class UwsExchange extends ExchangeBase {
  readonly #res: uWS.HttpResponse;
  readonly #maxBufferedBytes: number;
  readonly #pending = new WriteConfirmations();
  /** uWS reported that it holds bytes the socket did not take; an onWritable event will follow. */
  #congested = false;
  #probeScheduled = false;

  /**
   * Call synchronously inside the uWS route handler: it copies the request and registers the abort handler.
   * A body that takes longer than `requestTimeoutMs` to arrive is answered 408 (node:http's requestTimeout).
   */
  constructor(res: uWS.HttpResponse, req: uWS.HttpRequest, maxBufferedBytes: number, clientAddress: ClientAddress = peerIsClient, requestTimeoutMs = Infinity) {
    const headers = uwsHeaders(req);
    super(
      {
        method: req.getCaseSensitiveMethod().toUpperCase(),
        path: req.getUrl(),
        queryString: req.getQuery() ?? '',
        headers,
        remoteAddress: clientAddress(uwsPeer(res), headers['x-forwarded-for']),
      },
      requestTimeoutMs,
    );
    this.#res = res;
    this.#maxBufferedBytes = maxBufferedBytes;
    res.onAborted(() => this.finish('aborted'));
  }

  /** Bytes written but not yet confirmed to have left user space. */
  get bufferedBytes(): number {
    return this.#pending.bytes;
  }

  protected body(): BodySource {
    return uwsBody(this.#res);
  }

  /** Whatever uWS has not confirmed by the finish is not known to have left. */
  protected settleWrites(how: ExchangeEnd): void {
    this.#pending.rejectAll(new StreamClosedError(how));
  }

  /** Sends a complete response. False when the exchange already answered or the client is gone. */
  answer(status: number, headers: Readonly<Record<string, string>>, body: string | Uint8Array = '', closeConnection = false): boolean {
    if (this.state !== 'new') return false;
    this.#res.cork(() => {
      this.#writeHead(status, headers, !closeConnection);
      this.#res.end(body, closeConnection);
    });
    this.finish('ended');
    return true;
  }

  /**
   * Starts a streamed (chunked) response. uWS sends the head only with the first non-empty chunk,
   * so `first` must not be empty. False when the exchange already answered or the client is gone.
   */
  open(status: number, headers: Readonly<Record<string, string>>, first: string): boolean {
    if (this.state !== 'new') return false;
    this.state = 'streaming';
    this.#res.onWritable(() => {
      this.#probe();
      return true;
    });
    let ok = false;
    this.#res.cork(() => {
      this.#writeHead(status, headers);
      ok = this.#res.write(first);
    });
    this.#afterWrite(ok);
    return true;
  }

  /**
   * Writes a chunk of a streamed response. Resolves once uWS has handed it to the socket; rejects
   * with StreamClosedError when the stream is not open, or closes (client gone, buffer limit, end)
   * before that is known. A write that takes the unconfirmed bytes past the limit disconnects the client.
   */
  write(chunk: string | Uint8Array): Promise<void> {
    if (this.state !== 'streaming') return Promise.reject(new StreamClosedError(this.ended ?? 'destroyed'));
    let ok = false;
    this.#res.cork(() => {
      ok = this.#res.write(chunk);
    });
    // A successful corked write proves uWS held nothing before it; the chunk itself sits in the
    // cork buffer until uncork, so it is confirmed by the next probe.
    if (ok) this.#pending.confirmAll();
    const confirmed = this.#pending.add(typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength);
    if (this.#pending.bytes > this.#maxBufferedBytes) {
      this.#cutOff('overflow');
      return confirmed;
    }
    this.#afterWrite(ok);
    return confirmed;
  }

  /** Resolves once every byte written so far has left user space; rejects if the stream closes first. */
  flushed(): Promise<void> {
    if (this.state === 'streaming') return this.#pending.size === 0 ? Promise.resolve() : this.#pending.add(0);
    return this.ended === 'ended' ? Promise.resolve() : Promise.reject(new StreamClosedError(this.ended ?? 'destroyed'));
  }

  /** Ends a streamed response cleanly (the chunked terminator), or answers an unanswered exchange with `status`. */
  end(status = 204): void {
    if (this.state === 'new') {
      this.answer(status, {});
      return;
    }
    if (this.state !== 'streaming') return;
    if (!this.#congested && this.#pending.size > 0) this.#probe();
    this.#res.cork(() => this.#res.end());
    this.finish('ended');
  }

  /** Drops the connection at once. */
  destroy(): void {
    this.#cutOff('destroyed');
  }

  #writeHead(status: number, headers: Readonly<Record<string, string>>, keepAlive = true): void {
    this.onHead?.(status);
    this.#res.writeStatus(`${status} ${STATUS_CODES[status] ?? ''}`);
    for (const name in headers) this.#res.writeHeader(name, headers[name]!);
    if (keepAlive) this.#res.writeHeader('keep-alive', UWS_KEEP_ALIVE);
  }

  #afterWrite(ok: boolean): void {
    // A failed write left bytes in uWS, and onWritable will follow; a successful one proves it held none.
    this.#congested = !ok;
    if (!ok || this.#probeScheduled || this.#pending.size === 0) return;
    // Probe on the next turn, after uWS has uncorked and tried the socket.
    this.#probeScheduled = true;
    setImmediate(() => {
      this.#probeScheduled = false;
      if (this.state === 'streaming' && !this.#congested && this.#pending.size > 0) this.#probe();
    });
  }

  /** Writes a probe: it drives uWS's drain, and its success confirms every earlier byte. */
  #probe(): void {
    if (this.state !== 'streaming') return;
    let ok = false;
    this.#res.cork(() => {
      ok = this.#res.write(PROBE);
    });
    this.#congested = !ok;
    if (ok) this.#pending.confirmAll();
  }

  #cutOff(how: 'overflow' | 'destroyed'): void {
    if (this.ended) return;
    const res = this.#res;
    this.finish(how);
    // close() fires onAborted synchronously; finish has already run, so that is a no-op.
    res.close();
  }

}
