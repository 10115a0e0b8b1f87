import type { IncomingMessage, ServerResponse } from 'node:http';
import { peerIsClient, type ClientAddress } from './client-address.js';
import { ExchangeBase, StreamClosedError, type ExchangeEnd } from './exchange.js';
import type { BodySource } from './request-gate.js';

interface PendingWrite {
  readonly bytes: number;
  settled: boolean;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

const ignore = () => undefined;

/** The request line's path and raw query. */
export function splitUrl(url: string | undefined): { path: string; queryString: string } {
  const target = url ?? '/';
  const mark = target.indexOf('?');
  return mark < 0 ? { path: target, queryString: '' } : { path: target.slice(0, mark), queryString: target.slice(mark + 1) };
}

/** Lower-case names, every repeat joined with `, ` (as uWS reports them; node:http would drop some repeats). */
export function joinHeaders(rawHeaders: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}

/** The peer's address as uWS writes it for IPv4: without the `::ffff:` of a dual-stack socket. */
export function peerAddress(address: string | undefined): string {
  if (!address) return '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** A node:http request's body as a {@link BodySource}. */
export function nodeBody(req: IncomingMessage): BodySource {
  return (onChunk, onEnd) => {
    req.on('data', onChunk);
    req.on('end', onEnd);
    return () => {
      req.off('data', onChunk);
      req.off('end', onEnd);
    };
  };
}

/**
 * One node:http request and its response, with the semantics of the uWS exchange: a streamed write
 * resolves once node has handed its bytes to the kernel (the socket holds nothing, or the write
 * callback ran), and the client is cut off when more than `maxBufferedBytes` wait in user space.
 */
export class NodeExchange extends ExchangeBase {
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #maxBufferedBytes: number;
  #pending: PendingWrite[] = [];
  #bufferedBytes = 0;

  /** A body that takes longer than `requestTimeoutMs` to arrive is answered 408, as the gate answers one. */
  constructor(req: IncomingMessage, res: ServerResponse, maxBufferedBytes: number, clientAddress: ClientAddress = peerIsClient, requestTimeoutMs = Infinity) {
    const headers = joinHeaders(req.rawHeaders);
    super(
      {
        method: (req.method ?? 'GET').toUpperCase(),
        ...splitUrl(req.url),
        headers,
        remoteAddress: clientAddress(peerAddress(req.socket.remoteAddress), headers['x-forwarded-for']),
      },
      requestTimeoutMs,
    );
    this.#req = req;
    this.#res = res;
    this.#maxBufferedBytes = maxBufferedBytes;
    res.on('close', () => {
      this.finish(res.writableFinished ? 'ended' : 'aborted');
      // Whatever node did not confirm by now never left.
      this.#settlePending(new StreamClosedError(this.ended ?? 'destroyed'));
    });
  }

  get bufferedBytes(): number {
    return this.#bufferedBytes;
  }

  protected body(): BodySource {
    return nodeBody(this.#req);
  }

  /** A clean end leaves its writes to be confirmed by node; any other end loses them. */
  protected settleWrites(how: ExchangeEnd): void {
    if (how !== 'ended') this.#settlePending(new StreamClosedError(how));
  }

  answer(status: number, headers: Readonly<Record<string, string>>, body: string | Uint8Array = '', closeConnection = false): boolean {
    if (this.state !== 'new' || this.#res.destroyed) return false;
    const payload = typeof body === 'string' ? Buffer.from(body) : body;
    const head: Record<string, string> = { ...headers, 'content-length': String(payload.byteLength) };
    if (closeConnection) head.connection = 'close';
    this.onHead?.(status);
    this.#res.writeHead(status, head);
    this.#res.end(payload);
    this.finish('ended');
    return true;
  }

  open(status: number, headers: Readonly<Record<string, string>>, first: string): boolean {
    if (this.state !== 'new' || this.#res.destroyed) return false;
    this.state = 'streaming';
    this.onHead?.(status);
    this.#res.writeHead(status, headers);
    void this.write(first);
    return true;
  }

  write(chunk: string | Uint8Array): Promise<void> {
    if (this.state !== 'streaming') return Promise.reject(new StreamClosedError(this.ended ?? 'destroyed'));
    const bytes = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    let entry!: PendingWrite;
    const confirmed = new Promise<void>((resolve, reject) => {
      entry = { bytes, settled: false, resolve, reject };
    });
    confirmed.catch(ignore);
    this.#pending.push(entry);
    this.#bufferedBytes += bytes;
    this.#res.write(chunk, (err) => this.#settle(entry, err ?? undefined));
    // node:http corks the socket until the next tick; uncorked now, the socket tries the kernel at
    // once and its writableLength says what is still held in user space, as uWS's write result does.
    const socket = this.#res.socket;
    while (socket?.writableCorked) socket.uncork();
    const held = this.#res.writableLength;
    if (held === 0) this.#settlePending();
    else if (held > this.#maxBufferedBytes) this.#cutOff('overflow');
    return confirmed;
  }

  flushed(): Promise<void> {
    if (this.state !== 'streaming' && this.ended !== 'ended') return Promise.reject(new StreamClosedError(this.ended ?? 'destroyed'));
    if (this.#pending.length === 0) return Promise.resolve();
    // A zero-byte marker, settled with the write before it.
    return new Promise<void>((resolve, reject) => this.#pending.push({ bytes: 0, settled: false, resolve, reject }));
  }

  end(status = 204): void {
    if (this.state === 'new') {
      this.answer(status, {});
      return;
    }
    if (this.state !== 'streaming') return;
    this.#res.end();
    this.finish('ended');
  }

  destroy(): void {
    this.#cutOff('destroyed');
  }

  /** A write callback: this write, and every zero-byte marker queued before the next write, are settled. */
  #settle(entry: PendingWrite, err: Error | undefined): void {
    if (entry.settled) return;
    const index = this.#pending.indexOf(entry);
    // Node calls write callbacks in order, so everything before this entry has left too.
    const done = index < 0 ? [entry] : this.#pending.splice(0, index + 1);
    while (this.#pending.length > 0 && this.#pending[0]!.bytes === 0) done.push(this.#pending.shift()!);
    for (const item of done) {
      if (item.settled) continue;
      item.settled = true;
      this.#bufferedBytes -= item.bytes;
      if (err) item.reject(new StreamClosedError(this.ended ?? 'destroyed'));
      else item.resolve();
    }
  }

  /** Settles every write still waiting: confirmed (the socket holds nothing: all has left user space), or failed with `err`. */
  #settlePending(err?: Error): void {
    const pending = this.#pending;
    this.#pending = [];
    this.#bufferedBytes = 0;
    for (const item of pending) {
      if (item.settled) continue;
      item.settled = true;
      if (err) item.reject(err);
      else item.resolve();
    }
  }

  #cutOff(how: 'overflow' | 'destroyed'): void {
    if (this.ended) return;
    this.finish(how);
    this.#res.destroy();
  }

}
