import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type PubAck,
} from '@nats-io/jetstream';
import { headers, nanos, type NatsConnection } from '@nats-io/transport-node';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { WORK_STREAM, workStreamSubjects, workSubject } from '../protocol/index.js';
import type { Logger } from '../logger.js';
import { checkToken } from './in-process-work-queue.js';
import { RetryLater, delayAfter, retryDelayOf, type Enqueued, type ProcessOptions, type WorkHandler, type WorkItem, type WorkQueue, type Worker } from './work-queue.js';

/** How long a refused publish is tried again before the enqueue fails: JetStream's recovery after a restart. */
const PUBLISH_RETRY_MS = 2_000;

export interface JetStreamWorkQueueOptions {
  connection: NatsConnection;
  /** JetStream stream holding the work (default `SB_WORK`). */
  stream?: string;
  /** Subjects of the stream: `<prefix>.<kind>` (default `sb.work`); streams must not share subjects. */
  subjectPrefix?: string;
  /** How long an enqueue with the same id is recognised as a duplicate and dropped (default 2 min). */
  duplicateWindowMs?: number;
  /** JetStream replicas of the stream when this creates it (default 1). */
  replicas?: number;
  /** Time a worker has to ack before the item goes to another worker (default 30 s); long handlers keep it alive. */
  ackWaitMs?: number;
  logger?: Logger;
}

/**
 * Durable work over a JetStream work-queue stream: at least once, acked only after the handler
 * succeeded, redelivered to another worker when one fails or dies (ack wait). Enqueue answers only
 * once the server stored the item, and drops a repeat of an id inside the duplicate window. Every
 * worker of a kind shares one durable consumer, so each item is in one worker's hands at a time.
 * A retry is a delayed nak, so the attempt is the server's delivery count and outlives the worker.
 * Handlers must be idempotent by item id: a worker can die after its effect and before its ack.
 */
export class JetStreamWorkQueue implements WorkQueue {
  readonly stream: string;
  readonly #js: JetStreamClient;
  #jsm: JetStreamManager | undefined;
  #ready: Promise<void> | undefined;
  /** Each enqueue waiting for the server's acknowledgement. */
  readonly #pending = new Set<(err: Error) => void>();

  constructor(private readonly options: JetStreamWorkQueueOptions) {
    this.stream = options.stream ?? WORK_STREAM;
    this.#js = jetstream(options.connection);
    // The status stream ends, or throws, when the connection closes.
    this.#followStatus().catch(() => undefined);
  }

  /**
   * An enqueue waiting when the connection drops fails at once, as the bus's requests do: its
   * acknowledgement may never come, and waiting the publish's whole time-out held the agent's mailbox
   * (an inbound message, a send's journal entry) for seconds after NATS came back. It may have been
   * stored: enqueueing it again is safe, a repeat of its id is dropped.
   */
  async #followStatus(): Promise<void> {
    for await (const status of this.options.connection.status()) {
      if (status.type !== 'disconnect') continue;
      for (const fail of [...this.#pending]) {
        fail(new SwitchboardError(ErrorCodes.TIMEOUT, 'The connection to NATS dropped while a work item was being stored; the outcome is unknown.', { retryable: true }));
      }
    }
  }

  /** Creates the stream if missing (safe to call from every node at once). */
  ready(): Promise<void> {
    this.#ready ??= this.#ensureStream().catch((err: unknown) => {
      this.#ready = undefined;
      throw err;
    });
    return this.#ready;
  }

  /**
   * Stores an item of `kind` under `id`; resolves once it is on the server. `duplicate` when that id
   * was already enqueued. A publish the server refuses while connected (JetStream still recovering its
   * streams after a restart answers "no responders") is tried again for a moment, as the id makes a
   * repeat harmless; then it fails UNAVAILABLE, which a caller may retry.
   */
  async enqueue(kind: string, id: string, payload: unknown): Promise<Enqueued> {
    checkToken('kind', kind);
    await this.ready().catch((err: unknown) => {
      // NATS away before the stream was ever looked up here (a gateway's first delivery): the caller may retry.
      throw err instanceof SwitchboardError ? err : new SwitchboardError(ErrorCodes.UNAVAILABLE, `NATS did not answer for the work stream: ${(err as Error)?.message ?? err}.`, { retryable: true, cause: err });
    });
    const h = headers();
    h.set('Sb-Work-Id', id);
    const data = JSON.stringify(payload ?? null);
    const deadline = Date.now() + PUBLISH_RETRY_MS;
    for (let delay = 50; ; delay = Math.min(delay * 2, 400)) {
      try {
        const ack = await this.#publish(this.#subject(kind), data, `${kind}:${id}`, h);
        return { duplicate: ack.duplicate, remove: () => this.#remove(ack.seq) };
      } catch (err) {
        if (err instanceof SwitchboardError) throw err;
        if (Date.now() + delay > deadline) {
          throw new SwitchboardError(ErrorCodes.UNAVAILABLE, `NATS did not store the ${kind} work item: ${(err as Error)?.message ?? err}.`, { retryable: true, cause: err });
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  /** One publish, failed at once (TIMEOUT) when the connection drops while it waits for its acknowledgement. */
  #publish(subject: string, data: string, msgID: string, h: ReturnType<typeof headers>): Promise<PubAck> {
    return new Promise<PubAck>((resolve, reject) => {
      const fail = (err: Error) => {
        this.#pending.delete(fail);
        reject(err);
      };
      this.#pending.add(fail);
      this.#js.publish(subject, data, { msgID, headers: h }).then(
        (ack) => {
          if (this.#pending.delete(fail)) resolve(ack);
        },
        (err: unknown) => {
          if (this.#pending.has(fail)) fail(err as Error);
        },
      );
    });
  }

  /** Starts a worker taking items of `kind`. */
  async process<T>(kind: string, handler: WorkHandler<T>, options: ProcessOptions<T> = {}): Promise<Worker> {
    checkToken('kind', kind);
    await this.ready();
    const durable = `work_${kind}`;
    const maxDeliver = options.maxDeliver ?? 5;
    const retryDelay = retryDelayOf(options.retryDelayMs);
    const config = {
      durable_name: durable,
      filter_subject: this.#subject(kind),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(this.options.ackWaitMs ?? 30_000),
      // The server redelivers without limit and the give-up is ours: at its own max_deliver a work-queue item would stay in the stream for good.
      max_deliver: -1,
    };
    try {
      await this.#jsm!.consumers.add(this.stream, config);
    } catch (err) {
      // Another worker made it first with other settings: use what is there, but never a bounded max_deliver (older consumers had one).
      if (!(err instanceof JetStreamApiError)) throw err;
      this.options.logger?.debug({ err, durable }, 'work consumer exists');
      const existing = await this.#jsm!.consumers.info(this.stream, durable);
      if (existing.config.max_deliver !== -1) await this.#jsm!.consumers.update(this.stream, durable, { max_deliver: -1 });
    }
    const consumer = await this.#js.consumers.get(this.stream, durable);
    const concurrency = options.concurrency ?? 1;
    const messages: ConsumerMessages = await consumer.consume({ max_messages: concurrency });
    const inFlight = new Set<Promise<void>>();
    const giveUp = async (msg: JsMsg, item: WorkItem<T>, err: unknown) => {
      this.options.logger?.warn({ err, kind, id: item.id, attempt: item.attempt }, 'work item failed for the last time');
      try {
        await options.onGiveUp?.(item, err);
        await msg.ackAck();
      } catch (giveUpErr) {
        this.options.logger?.error({ err: giveUpErr, kind, id: item.id }, 'work item could not be given up; it comes back to be given up again');
        msg.nak(retryDelay(item.attempt));
      }
    };
    const run = async (msg: JsMsg) => {
      const item: WorkItem<T> = {
        id: msg.headers?.get('Sb-Work-Id') ?? String(msg.seq),
        kind,
        payload: msg.json<T>(),
        attempt: msg.info.deliveryCount,
      };
      // Its last attempt died with its worker (or the give-up failed): running it again could kill another.
      if (item.attempt > maxDeliver) return giveUp(msg, item, new Error(`attempt ${maxDeliver} of work item ${item.id} did not finish`));
      // Keeps the item ours while a long handler runs.
      const keepAlive = setInterval(() => {
        try {
          msg.working();
        } catch {
          // The connection is gone; the item will go to another worker after the ack wait.
        }
      }, Math.max(100, Number(config.ack_wait) / 1e6 / 2));
      try {
        await handler(item);
        clearInterval(keepAlive);
        // A worker cut off from the server cannot ack; the item goes to another after the ack wait.
        if (this.options.connection.isClosed()) return;
        await msg.ackAck();
      } catch (err) {
        clearInterval(keepAlive);
        if (item.attempt >= maxDeliver) {
          await giveUp(msg, item, err);
        } else {
          if (err instanceof RetryLater) this.options.logger?.debug({ kind, id: item.id, attempt: item.attempt, reason: err.message }, 'work item not due yet');
          else this.options.logger?.info({ err, kind, id: item.id, attempt: item.attempt }, 'work item failed; it will be retried');
          msg.nak(delayAfter(err, item.attempt, retryDelay));
        }
      }
    };
    const loop = (async () => {
      for await (const msg of messages) {
        const task = run(msg).catch((err: unknown) => this.options.logger?.warn({ err, kind }, 'work item could not be settled'));
        inFlight.add(task);
        void task.finally(() => inFlight.delete(task));
        while (inFlight.size >= concurrency) await Promise.race(inFlight);
      }
    })();
    return {
      async stop() {
        messages.stop();
        await loop.catch(() => undefined);
        await Promise.all(inFlight);
      },
    };
  }

  /** Removes a stored item (by the sequence `enqueue` answered). */
  async #remove(sequence: number): Promise<void> {
    await this.ready();
    await this.#jsm!.streams.deleteMessage(this.stream, sequence, false);
  }

  /** Items stored and not yet acked, per the stream. */
  async pending(): Promise<number> {
    await this.ready();
    return (await this.#jsm!.streams.info(this.stream)).state.messages;
  }

  async #ensureStream(): Promise<void> {
    this.#jsm = await jetstreamManager(this.options.connection);
    const config = {
      name: this.stream,
      subjects: [workStreamSubjects(this.options.subjectPrefix)],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: nanos(this.options.duplicateWindowMs ?? 120_000),
      num_replicas: this.options.replicas ?? 1,
    };
    try {
      await this.#jsm.streams.info(this.stream);
    } catch (err) {
      if (!(err instanceof JetStreamApiError)) throw err;
      try {
        await this.#jsm.streams.add(config);
      } catch (addErr) {
        // Another node created it meanwhile.
        if (!(addErr instanceof JetStreamApiError)) throw addErr;
        await this.#jsm.streams.info(this.stream);
      }
    }
  }

  #subject(kind: string): string {
    return workSubject(kind, this.options.subjectPrefix);
  }
}
