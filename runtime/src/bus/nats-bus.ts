import { PermissionViolationError, connect, createInbox, headers, type ConnectionOptions, type Msg, type MsgHdrs, type NatsConnection, type Subscription as NatsSubscription } from '@nats-io/transport-node';
import { ErrorCodes, SwitchboardError, fromErrorPayload, toErrorPayload, type ErrorPayload } from '@switchboard/sdk';
import type { Bus, BusHandler, RequestOptions, SubscribeOptions, Subscription } from './bus.js';
import type { Logger } from '../logger.js';
import { PROTOCOL_HEADER, PROTOCOL_VERSION, repliesWildcard, replySubject, servesProtocol, tokenOfReplySubject } from '../protocol/index.js';
import { childSpan, contextFromHeaders, inSpan, SpanKind, traceHeaders, tracing } from '../tracing.js';

type Reply = { ok: true; data: unknown } | { ok: false; error: ErrorPayload & { retryAfter?: number } };

/** What a bus needs beyond its connection. */
export interface NatsBusOptions {
  /** Where a refused peer is reported (once a minute per peer version). */
  logger?: Logger;
  /** The version this process speaks; another only in tests, to play an older or newer peer. */
  protocolVersion?: number;
}

/** How often a refusal of one peer version is logged again. */
const REFUSAL_LOG_EVERY_MS = 60_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The bus of cluster mode, over NATS core request/reply with the official client. Same semantics as
 * the memory bus: JSON payloads, `*`/`>` wildcards, queue groups, first reply wins, TIMEOUT when no
 * reply comes in time, UNAVAILABLE when nobody listens (NATS no-responders) or the bus is closed.
 * Replies travel as `{ok, data}` or `{ok: false, error}` so coded errors survive the trip. Every
 * message carries this process's protocol version ({@link PROTOCOL_VERSION}); one from a peer this
 * version does not serve is refused (a request with UNAVAILABLE, a reply as the request's failure, a
 * publish dropped), never read, and logged with both versions.
 */
export class NatsBus implements Bus {
  #closed = false;
  /** False between a disconnect and the reconnect that follows. */
  #connected = true;
  /** Each request waiting for its reply, by the last token of its reply subject. */
  readonly #pending = new Map<string, PendingRequest>();
  readonly #subscriptions = new Set<NatsSubscription>();
  /** Where replies come: `<inbox>.<token>`, `<inbox>` under the connection's inbox prefix (the role's, see cluster-mode). */
  readonly #inbox: string;
  readonly #replies: NatsSubscription;
  #nextToken = 0;
  /** One header block for every message this bus sends. */
  readonly #headers: MsgHdrs;
  readonly #version: number;
  readonly #logger: Logger | undefined;
  /** When a refusal of each peer version was last logged. */
  readonly #refusalsLogged = new Map<string, number>();
  /** The connection's name (`switchboard-<node id>` in a cluster), on this bus's spans. */
  readonly #client: string;

  private constructor(
    readonly connection: NatsConnection,
    options: NatsBusOptions = {},
  ) {
    this.#version = options.protocolVersion ?? PROTOCOL_VERSION;
    this.#logger = options.logger;
    this.#headers = headers();
    this.#headers.set(PROTOCOL_HEADER, String(this.#version));
    // The status stream ends, or throws ClosedConnectionError, when the connection closes.
    this.#followStatus().catch(() => undefined);
    const given = (connection as { options?: ConnectionOptions }).options;
    this.#inbox = createInbox(given?.inboxPrefix);
    this.#client = given?.name ?? '';
    this.#replies = connection.subscribe(repliesWildcard(this.#inbox), {
      callback: (err, msg) => {
        if (!err) this.#reply(msg);
      },
    });
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
        for (const [token, { subject }] of [...this.#pending]) {
          this.#fail(token, new SwitchboardError(ErrorCodes.TIMEOUT, `The connection to NATS dropped while waiting for a reply on ${subject}; the outcome is unknown.`, { retryable: true }));
        }
      } else if (status.type === 'reconnect') {
        this.#connected = true;
      } else if (status.type === 'error' && status.error instanceof PermissionViolationError && status.error.operation === 'publish') {
        // The server refused a request's subject: it was never delivered.
        const refused = status.error.subject;
        for (const [token, { subject }] of [...this.#pending]) {
          if (subject === refused) this.#fail(token, new SwitchboardError(ErrorCodes.UNAVAILABLE, `The bus could not carry the request on ${subject}: ${status.error.message}.`, { retryable: true }));
        }
      }
    }
  }

  /**
   * Connects to `servers` (default `nats://127.0.0.1:4222`), retrying the first connect for a while,
   * reconnecting for ever. The client's `noAsyncTraces` stays off (with it on, partitions taken over
   * after a node's death were never renewed in 3 of 6 cluster test runs); the bus's own requests do
   * not go through the client's `request`, which builds three Errors with stacks for each.
   */
  static async connect(options: ConnectionOptions = {}, busOptions: NatsBusOptions = {}): Promise<NatsBus> {
    const connection = await connect({ maxReconnectAttempts: -1, reconnectTimeWait: 250, waitOnFirstConnect: false, ...options });
    return new NatsBus(connection, busOptions);
  }

  /** Wraps a connection opened elsewhere; `close()` closes it. */
  static fromConnection(connection: NatsConnection, busOptions: NatsBusOptions = {}): NatsBus {
    return new NatsBus(connection, busOptions);
  }

  request<T = unknown>(subject: string, data: unknown, options: RequestOptions = {}): Promise<T> {
    // Traced, a request is a client span whose context travels in the message's headers.
    if (tracing.on) return childSpan(`request ${kindOf(subject)}`, SpanKind.CLIENT, { 'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.client.id': this.#client }, () => this.#request<T>(subject, data, options));
    return this.#request<T>(subject, data, options);
  }

  #request<T>(subject: string, data: unknown, options: RequestOptions): Promise<T> {
    if (this.#closed) return Promise.reject(closedError());
    if (!this.#connected) return Promise.reject(new SwitchboardError(ErrorCodes.UNAVAILABLE, `Not connected to NATS; ${subject} was not sent.`, { retryable: true }));
    const timeoutMs = options.timeoutMs ?? 5000;
    return new Promise<T>((resolve, reject) => {
      const token = (this.#nextToken++).toString(36);
      const timer = setTimeout(() => this.#fail(token, new SwitchboardError(ErrorCodes.TIMEOUT, `No reply on ${subject} within ${timeoutMs} ms.`, { retryable: true })), timeoutMs);
      this.#pending.set(token, { subject, resolve: resolve as (data: unknown) => void, reject, timer });
      try {
        this.connection.publish(subject, encode(data), { reply: replySubject(this.#inbox, token), headers: tracing.on ? this.#tracedHeaders() : this.#headers });
      } catch (err) {
        this.#fail(token, new SwitchboardError(ErrorCodes.UNAVAILABLE, `The bus could not carry the request on ${subject}: ${(err as Error)?.message ?? err}.`, { retryable: true, cause: err }));
      }
    });
  }

  /** A reply, or the server's no-responders status (no data, code 503): nobody listens on the subject. */
  #reply(msg: Msg): void {
    const token = tokenOfReplySubject(this.#inbox, msg.subject);
    const request = this.#pending.get(token);
    if (!request) return;
    if (msg.data.length === 0 && msg.headers?.code === 503) {
      this.#fail(token, new SwitchboardError(ErrorCodes.UNAVAILABLE, `No service answers ${request.subject}.`, { retryable: true }));
      return;
    }
    const refused = this.#refused(msg, request.subject);
    if (refused) return this.#fail(token, refused);
    this.#pending.delete(token);
    clearTimeout(request.timer);
    let reply: Reply;
    try {
      reply = decode(msg.data) as Reply;
    } catch (err) {
      request.reject(new SwitchboardError(ErrorCodes.UNAVAILABLE, `The reply on ${request.subject} is not JSON.`, { retryable: true, cause: err }));
      return;
    }
    if (reply.ok) request.resolve(reply.data);
    else request.reject(fromErrorPayload(reply.error));
  }

  #fail(token: string, err: SwitchboardError): void {
    const request = this.#pending.get(token);
    if (!request) return;
    this.#pending.delete(token);
    clearTimeout(request.timer);
    request.reject(err);
  }

  publish(subject: string, data: unknown): void {
    if (this.#closed) throw closedError();
    this.connection.publish(subject, encode(data), { headers: tracing.on ? this.#tracedHeaders() : this.#headers });
  }

  /** The header block with the active trace context (a block per message, made only while tracing is on). */
  #tracedHeaders(): MsgHdrs {
    const context = traceHeaders();
    if (context.traceparent === undefined) return this.#headers;
    const block = headers();
    block.set(PROTOCOL_HEADER, String(this.#version));
    for (const name in context) block.set(name, context[name]!);
    return block;
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
    for (const token of [...this.#pending.keys()]) this.#fail(token, closedError());
    this.#replies.unsubscribe();
    for (const sub of this.#subscriptions) sub.unsubscribe();
    this.#subscriptions.clear();
    if (!this.connection.isClosed()) await this.connection.close();
  }

  /**
   * The refusal of a message whose sender speaks a protocol this version does not serve (logged), or
   * undefined: a message this bus may read.
   */
  #refused(msg: Msg, subject: string): SwitchboardError | undefined {
    const header = msg.headers?.get(PROTOCOL_HEADER);
    const peer = header ? Number(header) : undefined;
    if (servesProtocol(peer, this.#version)) return undefined;
    const theirs = peer === undefined ? 'no protocol version (a release from before versions)' : `protocol ${header}`;
    const message = `A peer on ${subject} speaks ${theirs}; this process speaks protocol ${this.#version} and serves ${Math.max(1, this.#version - 1)} to ${this.#version + 1}. Upgrade or roll back one of them (docs/cluster.md, "Rolling upgrades").`;
    const key = header ?? '';
    const now = Date.now();
    if (now - (this.#refusalsLogged.get(key) ?? -Infinity) >= REFUSAL_LOG_EVERY_MS) {
      this.#refusalsLogged.set(key, now);
      this.#logger?.error({ subject, peerProtocol: header ?? null, protocol: this.#version }, message);
    }
    return new SwitchboardError(ErrorCodes.UNAVAILABLE, message, { retryable: true });
  }

  #handle(handler: BusHandler, msg: Msg): Promise<void> {
    if (!tracing.on) return this.#serve(handler, msg);
    // The sender's trace context (when it sent one) is the parent of this process's span for the message.
    const traceparent = msg.headers?.get('traceparent');
    if (!traceparent) return this.#serve(handler, msg);
    const tracestate = msg.headers?.get('tracestate');
    const parent = contextFromHeaders(tracestate ? { traceparent, tracestate } : { traceparent });
    const attributes = { 'messaging.system': 'nats', 'messaging.destination.name': msg.subject, 'messaging.client.id': this.#client };
    return inSpan(`process ${kindOf(msg.subject)}`, msg.reply ? SpanKind.SERVER : SpanKind.CONSUMER, attributes, () => this.#serve(handler, msg), parent);
  }

  async #serve(handler: BusHandler, msg: Msg): Promise<void> {
    let reply: Reply;
    const refused = this.#refused(msg, msg.subject);
    try {
      if (refused) throw refused;
      reply = { ok: true, data: (await handler(decode(msg.data), msg.subject)) ?? null };
    } catch (err) {
      // A coded error is an answer; anything else is a fault the requester sees only as INTERNAL, so its cause is logged here.
      if (!(err instanceof SwitchboardError)) this.#logger?.error({ err, subject: msg.subject }, 'a bus request failed with an uncoded error; answered INTERNAL');
      const retryAfter = (err as { retryAfter?: number }).retryAfter;
      reply = { ok: false, error: { ...toErrorPayload(err), ...(retryAfter === undefined ? {} : { retryAfter }) } };
    }
    if (!msg.reply || this.#closed || this.connection.isClosed()) return;
    try {
      msg.respond(encode(reply), { headers: this.#headers });
    } catch {
      // The connection went away between the check and the reply; the requester times out.
    }
  }
}

/** A request waiting for its reply. */
interface PendingRequest {
  readonly subject: string;
  resolve(data: unknown): void;
  reject(err: unknown): void;
  readonly timer: NodeJS.Timeout;
}

/** A span's name for a subject: its first two tokens (`sb.agent`), never an agent id or a partition. */
function kindOf(subject: string): string {
  const second = subject.indexOf('.', subject.indexOf('.') + 1);
  return second < 0 ? subject : subject.slice(0, second);
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
