import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { Logger } from '../logger.js';
import { RetryLater, delayAfter, retryDelayOf, type Enqueued, type ProcessOptions, type WorkHandler, type WorkItem, type WorkQueue, type Worker } from './work-queue.js';

export interface InProcessWorkQueueOptions {
  /** How long an enqueue with the same id is recognised as a duplicate and dropped (default 2 min); an item still queued always is. */
  duplicateWindowMs?: number;
  logger?: Logger;
}

interface Item {
  readonly kind: string;
  readonly id: string;
  readonly payload: unknown;
  /** Deliveries so far. */
  attempt: number;
  timer: NodeJS.Timeout | undefined;
  inHand: boolean;
  removed: boolean;
}

interface LocalWorker {
  readonly kind: string;
  readonly concurrency: number;
  readonly run: (item: Item) => Promise<void>;
  inHand: number;
  stopped: boolean;
}

/**
 * The work queue of one process (embedded mode): items in memory, retries on timers. It is as durable
 * as the store rows it stands for: the work of a process that dies is in the store (a message still
 * pending, a send never sent), and the start-up recovery enqueues it again. So an enqueue costs no
 * write, and the only worker that could die holding an item is the process itself.
 */
export class InProcessWorkQueue implements WorkQueue {
  readonly #items = new Map<string, Item>();
  /** Ready items per kind, in the order they became due. */
  readonly #ready = new Map<string, Item[]>();
  readonly #workers = new Map<string, LocalWorker[]>();
  /** When each recent id was enqueued, for the duplicate window. */
  readonly #seen = new Map<string, number>();
  readonly #windowMs: number;

  constructor(private readonly options: InProcessWorkQueueOptions = {}) {
    this.#windowMs = options.duplicateWindowMs ?? 120_000;
  }

  async enqueue(kind: string, id: string, payload: unknown): Promise<Enqueued> {
    checkToken('kind', kind);
    const key = `${kind}:${id}`;
    const now = Date.now();
    this.#forgetOld(now);
    const existing = this.#items.get(key);
    const duplicate = existing !== undefined || this.#seen.has(key);
    const removeItem = async () => {
      const item = this.#items.get(key);
      if (item && (existing === undefined || item === existing)) this.#remove(item);
    };
    if (duplicate) return { duplicate: true, remove: removeItem };
    this.#seen.set(key, now);
    // Copied as the JetStream adapter's JSON copies it: a handler never shares the caller's object.
    const item: Item = { kind, id, payload: JSON.parse(JSON.stringify(payload ?? null)), attempt: 0, timer: undefined, inHand: false, removed: false };
    this.#items.set(key, item);
    this.#makeReady(item);
    return { duplicate: false, remove: removeItem };
  }

  async process<T>(kind: string, handler: WorkHandler<T>, options: ProcessOptions<T> = {}): Promise<Worker> {
    checkToken('kind', kind);
    const maxDeliver = options.maxDeliver ?? 5;
    const retryDelay = retryDelayOf(options.retryDelayMs);
    const logger = this.options.logger;
    const settled = new Set<Promise<void>>();
    const giveUp = async (item: Item, work: WorkItem<T>, err: unknown) => {
      logger?.warn({ err, kind, id: item.id, attempt: item.attempt }, 'work item failed for the last time');
      try {
        await options.onGiveUp?.(work, err);
        this.#remove(item);
      } catch (giveUpErr) {
        logger?.error({ err: giveUpErr, kind, id: item.id }, 'work item could not be given up; it comes back to be given up again');
        this.#later(item, retryDelay(item.attempt));
      }
    };
    const runItem = async (item: Item) => {
      item.attempt++;
      const work: WorkItem<T> = { id: item.id, kind, payload: item.payload as T, attempt: item.attempt };
      // A give-up that failed comes back here: given up again, never run again.
      if (item.attempt > maxDeliver) return giveUp(item, work, new Error(`attempt ${maxDeliver} of work item ${item.id} did not finish`));
      try {
        await handler(work);
        this.#remove(item);
      } catch (err) {
        if (item.removed) return;
        if (item.attempt >= maxDeliver) return giveUp(item, work, err);
        if (err instanceof RetryLater) logger?.debug({ kind, id: item.id, attempt: item.attempt, reason: err.message }, 'work item not due yet');
        else logger?.info({ err, kind, id: item.id, attempt: item.attempt }, 'work item failed; it will be retried');
        this.#later(item, delayAfter(err, item.attempt, retryDelay));
      }
    };
    const worker: LocalWorker = {
      kind,
      concurrency: options.concurrency ?? 1,
      inHand: 0,
      stopped: false,
      run: (item) => {
        const task = runItem(item)
          .catch((err: unknown) => logger?.warn({ err, kind }, 'work item could not be settled'))
          .finally(() => {
            item.inHand = false;
            worker.inHand--;
            settled.delete(task);
            this.#dispatch(kind);
          });
        settled.add(task);
        return task;
      },
    };
    this.#workers.set(kind, [...(this.#workers.get(kind) ?? []), worker]);
    this.#dispatch(kind);
    return {
      stop: async () => {
        worker.stopped = true;
        this.#workers.set(kind, (this.#workers.get(kind) ?? []).filter((w) => w !== worker));
        await Promise.all(settled);
      },
    };
  }

  async pending(): Promise<number> {
    return this.#items.size;
  }

  #makeReady(item: Item): void {
    const ready = this.#ready.get(item.kind) ?? [];
    ready.push(item);
    this.#ready.set(item.kind, ready);
    this.#dispatch(item.kind);
  }

  #later(item: Item, delayMs: number): void {
    item.timer = setTimeout(() => {
      item.timer = undefined;
      if (!item.removed) this.#makeReady(item);
    }, Math.max(0, delayMs));
    // A retry waiting is in the store too (see the class comment): it never keeps the process alive.
    item.timer.unref();
  }

  /** Hands ready items to workers with room, on the next turn so an enqueue answers first. */
  #dispatch(kind: string): void {
    const ready = this.#ready.get(kind);
    if (!ready || ready.length === 0) return;
    for (const worker of this.#workers.get(kind) ?? []) {
      while (!worker.stopped && worker.inHand < worker.concurrency && ready.length > 0) {
        const item = ready.shift()!;
        if (item.removed || item.inHand) continue;
        item.inHand = true;
        worker.inHand++;
        setImmediate(() => void worker.run(item));
      }
    }
  }

  #remove(item: Item): void {
    if (item.removed) return;
    item.removed = true;
    clearTimeout(item.timer);
    this.#items.delete(`${item.kind}:${item.id}`);
  }

  #forgetOld(now: number): void {
    // The map is in enqueue order: stop at the first id still inside the window.
    for (const [key, at] of this.#seen) {
      if (now - at < this.#windowMs) break;
      this.#seen.delete(key);
    }
  }
}

export function checkToken(what: string, value: string): void {
  if (!/^[A-Za-z0-9_-]+$/.test(value)) throw new SwitchboardError(ErrorCodes.BAD_REQUEST, `Work ${what} ${value} must use letters, digits, - or _.`);
}
