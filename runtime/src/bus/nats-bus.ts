import { RequestError, TimeoutError, connect, type ConnectionOptions, type Msg, type NatsConnection, type Subscription as NatsSubscription } from '@nats-io/transport-node';
import { ErrorCodes, SwitchboardError, fromErrorPayload, toErrorPayload, type ErrorPayload } from '@switchboard/sdk';
import type { Bus, BusHandler, RequestOptions, SubscribeOptions, Subscription } from './bus.js';

type Reply = { ok: true; data: unknown } | { ok: false; error: ErrorPayload & { retryAfter?: number } };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The bus of cluster mode, over NATS core request/reply with the official client. Same semantics as
 * the memory bus: JSON payloads, `*`/`>` wildcards, queue groups, first reply wins, TIMEOUT when no
 * reply comes in time, UNAVAILABLE when nobody listens (NATS no-responders) or the bus is closed.
 * Replies travel as `{ok, data}` or `{ok: false, error}` so coded errors survive the trip.
 */
export class NatsBus implements Bus {
  #closed = false;
  /** False between a disconnect and the reconnect that follows. */
  #connected = true;
  /** Each request waiting for its reply, with its subject. */
  readonly #pending = new Map<(err: SwitchboardError) => void, string>();
  readonly #subscriptions = new Set<NatsSubscription>();

  private constructor(readonly connection: NatsConnection) {
    // The status stream ends, or throws ClosedConnectionError, when the connection closes.
    this.#followStatus().catch(() => undefined);
  }

  /**
   * A request waiting when the connection drops is answered at once with TIMEOUT (it may have been
   * acted on; its reply may never come, and the client would otherwise wait its whole time-out, 41 s
   * for a send); one made while disconnected is refused with UNAVAILABLE (never sent, so never acted
   * on), which the agent client retries until the bus is back or its retry window ends.
   */
  async #followStatus(): Promise<void> {
    for await (const status of this.connection.status()) {
      if (status.type === 'disconnect') {
        this.#connected = false;
        for (const [fail, subject] of [...this.#pending]) {
          fail(new SwitchboardError(ErrorCodes.TIMEOUT, `The connection to NATS dropped while waiting for a reply on ${subject}; the outcome is unknown.`, { retryable: true }));
        }
      } else if (status.type === 'reconnect') {
        this.#connected = true;
      }
    }
  }

  /**
   * Connects to `servers` (default `nats://127.0.0.1:4222`), retrying the first connect for a while,
   * reconnecting for ever. The client builds an Error with a stack for every request (11 % of a
   * runtime node's busy time under ingest); its `noAsyncTraces` option would save that, but with it
   * on, partitions taken over after a node's death were never renewed in 3 of 6 cluster test runs, so
   * it stays off.
   */
  static async connect(options: ConnectionOptions = {}): Promise<NatsBus> {
    const connection = await connect({ maxReconnectAttempts: -1, reconnectTimeWait: 250, waitOnFirstConnect: false, ...options });
    return new NatsBus(connection);
  }

  /** Wraps a connection opened elsewhere; `close()` closes it. */
  static fromConnection(connection: NatsConnection): NatsBus {
    return new NatsBus(connection);
  }

  request<T = unknown>(subject: string, data: unknown, options: RequestOptions = {}): Promise<T> {
    if (this.#closed) return Promise.reject(closedError());
    if (!this.#connected) return Promise.reject(new SwitchboardError(ErrorCodes.UNAVAILABLE, `Not connected to NATS; ${subject} was not sent.`, { retryable: true }));
    const timeoutMs = options.timeoutMs ?? 5000;
    return new Promise<T>((resolve, reject) => {
      const fail = (err: SwitchboardError) => {
        this.#pending.delete(fail);
        reject(err);
      };
      this.#pending.set(fail, subject);
      this.connection.request(subject, encode(data), { timeout: timeoutMs }).then(
        (msg) => {
          if (!this.#pending.delete(fail)) return;
          const reply = decode(msg.data) as Reply;
          if (reply.ok) resolve(reply.data as T);
          else reject(fromErrorPayload(reply.error));
        },
        (err: unknown) => {
          if (!this.#pending.has(fail)) return;
          fail(requestError(err, subject, timeoutMs));
        },
      );
    });
  }

  publish(subject: string, data: unknown): void {
    if (this.#closed) throw closedError();
    this.connection.publish(subject, encode(data));
  }

  subscribe(subject: string, handler: BusHandler, options: SubscribeOptions = {}): Subscription {
    if (this.#closed) throw closedError();
    const sub = this.connection.subscribe(subject, {
      ...(options.queue === undefined ? {} : { queue: options.queue }),
      callback: (err, msg) => {
        if (err) return;
        void this.#handle(handler, msg);
      },
    });
    this.#subscriptions.add(sub);
    return {
      // Drained, not dropped: a request the server routed here before it saw the UNSUB is still
      // answered (a partition handed over refuses it, and the caller retries with the next holder);
      // dropped, it went unanswered for the caller's whole time-out. Disconnected, the server holds
      // no interest to drain and the client resubscribes only what is still open.
      unsubscribe: () => {
        this.#subscriptions.delete(sub);
        if (!this.#connected || this.connection.isClosed()) return sub.unsubscribe();
        sub.drain().catch(() => sub.unsubscribe());
      },
      isClosed: () => sub.isClosed(),
    };
  }

  /** Resolves once the server has seen every subscription and message sent so far. */
  async flush(): Promise<void> {
    if (!this.#closed) await this.connection.flush();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const fail of [...this.#pending.keys()]) fail(closedError());
    for (const sub of this.#subscriptions) sub.unsubscribe();
    this.#subscriptions.clear();
    if (!this.connection.isClosed()) await this.connection.close();
  }

  async #handle(handler: BusHandler, msg: Msg): Promise<void> {
    let reply: Reply;
    try {
      reply = { ok: true, data: (await handler(decode(msg.data), msg.subject)) ?? null };
    } catch (err) {
      const retryAfter = (err as { retryAfter?: number }).retryAfter;
      reply = { ok: false, error: { ...toErrorPayload(err), ...(retryAfter === undefined ? {} : { retryAfter }) } };
    }
    if (!msg.reply || this.#closed || this.connection.isClosed()) return;
    try {
      msg.respond(encode(reply));
    } catch {
      // The connection went away between the check and the reply; the requester times out.
    }
  }
}

function requestError(err: unknown, subject: string, timeoutMs: number): SwitchboardError {
  if (err instanceof RequestError && err.isNoResponders()) return new SwitchboardError(ErrorCodes.UNAVAILABLE, `No service answers ${subject}.`, { retryable: true, cause: err });
  if (err instanceof TimeoutError) return new SwitchboardError(ErrorCodes.TIMEOUT, `No reply on ${subject} within ${timeoutMs} ms.`, { retryable: true, cause: err });
  return new SwitchboardError(ErrorCodes.UNAVAILABLE, `The bus could not carry the request on ${subject}: ${(err as Error)?.message ?? err}.`, { retryable: true, cause: err });
}

function encode(data: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(data ?? null));
}

function decode(bytes: Uint8Array): unknown {
  return bytes.length === 0 ? null : JSON.parse(decoder.decode(bytes));
}

function closedError(): SwitchboardError {
  return new SwitchboardError(ErrorCodes.UNAVAILABLE, 'The bus is closed.', { retryable: true });
}
