/**
 * The work queue port: durable work items of a kind, run at least once by workers, retried with a
 * delay when they fail and given up after a bound. Two adapters: {@link InProcessWorkQueue} (one
 * process, embedded) and {@link JetStreamWorkQueue} (a cluster's runtime nodes share it). Both pass
 * the conformance suite in testing/work-queue-conformance.ts.
 */

/**
 * Thrown by a handler whose item is not due yet: offered again after the retry delay, or after
 * `delayMs` when the handler keeps its own schedule (callbacks), logged as routine, not as a failure.
 */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly delayMs?: number,
  ) {
    super(message);
  }
}

/** The wait before a failed item is offered again: the handler's own, else the worker's for the attempt. */
export function delayAfter(err: unknown, attempt: number, retryDelay: (attempt: number) => number): number {
  return err instanceof RetryLater && err.delayMs !== undefined ? err.delayMs : retryDelay(attempt);
}

/** What a handler learns about the work item it runs. */
export interface WorkItem<T = unknown> {
  /** The id it was enqueued under: the key to make the handler's effects idempotent. */
  readonly id: string;
  readonly kind: string;
  readonly payload: T;
  /** 1 on first delivery; more when an earlier attempt failed or its worker died before acking. */
  readonly attempt: number;
}

/** Runs one work item; resolving acks it, throwing has it offered again after `retryDelayMs` (until `maxDeliver`). */
export type WorkHandler<T = unknown> = (item: WorkItem<T>) => Promise<void>;

export interface ProcessOptions<T> {
  /** Items run at once by this worker (default 1). */
  concurrency?: number;
  /** Attempts before giving up on an item (default 5); `Infinity` when the handler decides itself. */
  maxDeliver?: number;
  /** Wait before a failed item is offered again (default 1 s), or the wait after a failed attempt `attempt`. */
  retryDelayMs?: number | ((attempt: number) => number);
  /**
   * Called when the last attempt failed, or its worker was lost; once it resolves the item leaves the
   * queue (make it a dead letter here). When it throws, the item comes back later to be given up again.
   */
  onGiveUp?: (item: WorkItem<T>, err: unknown) => Promise<void> | void;
}

/** A running worker. */
export interface Worker {
  /** Stops taking items and waits for the ones in hand to finish (and be acked). */
  stop(): Promise<void>;
}

/** What `enqueue` answers. */
export interface Enqueued {
  /** The id was enqueued already (and not yet forgotten): nothing new was stored. */
  readonly duplicate: boolean;
  /** Removes the item, its work done elsewhere; a worker holding it can no longer ack it, which is harmless. */
  remove(): Promise<void>;
}

export interface WorkQueue {
  /** Stores an item of `kind` under `id`; resolves once it is stored. A repeat of a recent id is dropped (`duplicate`). */
  enqueue(kind: string, id: string, payload: unknown): Promise<Enqueued>;
  /** Starts a worker taking items of `kind`. */
  process<T>(kind: string, handler: WorkHandler<T>, options?: ProcessOptions<T>): Promise<Worker>;
  /** Items stored and not yet acked, of every kind. */
  pending(): Promise<number>;
}

/** The wait after failed attempt `attempt`, as `retryDelayMs` says. */
export function retryDelayOf(retryDelayMs: ProcessOptions<unknown>['retryDelayMs']): (attempt: number) => number {
  const delay = retryDelayMs ?? 1000;
  return typeof delay === 'function' ? delay : () => delay;
}
