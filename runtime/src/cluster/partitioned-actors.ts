import type { NatsConnection } from '@nats-io/transport-node';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { Bus, Subscription } from '../bus/bus.js';
import type { Logger } from '../logger.js';
import type { TenureRepository } from '../store/repositories/tenures.js';
import { tenureLost, type Tenure, type TenureRecord } from '../tenure.js';
import { PartitionLeases, type LeaseEnd } from './partition-leases.js';
import { StoreWatch } from './store-watch.js';
import { DEFAULT_PARTITIONS, partitionOf } from './partitions.js';
import { PARTITION_PROBE, agentSubject, operationOfAgentSubject, partitionOperationsWildcard } from '../protocol/index.js';

/**
 * The actors a node serves its partitions' agents with (actors/actor-system.ts `ActorSystem`), as far as
 * partitions need them: the cluster folder knows nothing of what an operation does.
 */
export interface PartitionedSystem {
  /** Starts the actors without listening: subscriptions are per partition, taken here. */
  start(options: { listen: boolean }): void;
  /** Stops and waits for every mailbox to drain. */
  stop(): Promise<void>;
  /** Runs an operation in its agent's mailbox while `tenure` holds. */
  dispatch(name: string, data: unknown, tenure: Tenure): Promise<unknown>;
  /** Drops the actors `which` selects; resolves when their work drained. */
  forget(which: (agentId: string) => boolean): Promise<void>;
}

export interface PartitionedActorsOptions {
  /** Where the node takes agent operations (a NatsBus in a cluster). */
  bus: Bus;
  /** The NATS connection holding the lease bucket (the bus's own, or a second one). */
  connection: NatsConnection;
  system: PartitionedSystem;
  nodeId: string;
  partitions?: number;
  leaseTtlMs?: number;
  bucket?: string;
  replicas?: number;
  logger?: Logger;
  /** Where each partition's tenure is recorded before the node serves it, so that writes are fenced in the store; without it they are not. */
  tenures?: Pick<TenureRepository, 'record' | 'takeOver'>;
  /** Asks the store for an answer (a ping): a node whose store does not answer gives its partitions up until it does. */
  storeCheck?: () => Promise<unknown>;
  /** Told of each partition taken up and served (its tenure recorded): what the node before left is this node's from now on. */
  onTakenUp?: (partition: number) => void;
}

/**
 * A node's tenure of one partition: it holds while the node holds the partition's lease, and fences
 * writes with the revision of the lease it was taken with (so a write of a lease lost and taken again
 * since is refused by the store, while its provider call may go on: see DECISIONS, "One Tenure").
 * A refusal only refuses: whether the lease is gone for good is the lease keeper's to say (its
 * onReleased stops the subscription), see DECISIONS.md.
 */
class LeaseTenure implements Tenure {
  constructor(
    readonly partition: number,
    readonly fence: TenureRecord | undefined,
    private readonly leases: PartitionLeases,
    private readonly nodeId: string,
  ) {}

  holds(): boolean {
    return this.leases.holds(this.partition);
  }

  assert(): void {
    if (this.holds()) return;
    throw tenureLost(`Node ${this.nodeId} does not hold partition ${this.partition} now`);
  }
}

/**
 * A runtime node's share of the agents: it listens on `sb.agent.<p>.*` only for the partitions it
 * holds a lease on, checks the lease again inside each mailbox turn before acting (a node that lost
 * it refuses with UNAVAILABLE, which callers retry, and steps down), and drops a partition's actors
 * when the lease ends so that whoever holds it next loads their state from the store.
 */
export class PartitionedActors {
  readonly leases: PartitionLeases;
  readonly #partitions: number;
  readonly #subscriptions = new Map<number, Subscription>();
  /** The tenure of each partition served. */
  readonly #tenures = new Map<number, LeaseTenure>();
  /** The token of the latest tenure being taken up, so that an older take-up finishing late does nothing. */
  readonly #taking = new Map<number, number>();
  /** Partitions whose operations keep failing, by partition. */
  readonly #failing = new Map<number, Streak>();
  #store: StoreWatch | undefined;
  /** Renewal periods so far. */
  #periods = 0;

  constructor(private readonly options: PartitionedActorsOptions) {
    this.#partitions = options.partitions ?? DEFAULT_PARTITIONS;
    this.leases = new PartitionLeases({
      connection: options.connection,
      nodeId: options.nodeId,
      partitions: this.#partitions,
      ...(options.leaseTtlMs === undefined ? {} : { ttlMs: options.leaseTtlMs }),
      ...(options.bucket === undefined ? {} : { bucket: options.bucket }),
      ...(options.replicas === undefined ? {} : { replicas: options.replicas }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      onAcquired: (partition, token) => this.#attach(partition, token),
      onReleased: (partition, reason) => this.#detach(partition, reason),
      fit: () => this.#store?.fit ?? true,
      onPeriod: () => this.#onPeriod(),
    });
  }

  async start(): Promise<void> {
    this.options.system.start({ listen: false });
    await this.leases.start();
    // Asked every other renewal period (half the TTL in force), each ask given up after that long.
    if (this.options.storeCheck) this.#store = new StoreWatch(this.options.storeCheck, Math.max(100, Math.floor(this.leases.ttlMs / 2)), this.options.logger);
  }

  /**
   * Rides the lease renewal's timer, so that an idle node wakes once per period, not once per check: the
   * listening check every period, the store every other one.
   */
  #onPeriod(): void {
    this.#check();
    if (++this.#periods % 2 === 0) this.#store?.check();
  }

  /** Hands every partition over (work drained first), then stops the actors. */
  async stop(): Promise<void> {
    await this.leases.stop();
    for (const sub of this.#subscriptions.values()) sub.unsubscribe();
    this.#subscriptions.clear();
    await this.options.system.stop();
  }

  /** Runs one agent operation if, and only while, this node holds the agent's partition. */
  serve(partition: number, operation: string, data: unknown): Promise<unknown> {
    const agentId = (data as { agentId?: unknown } | null)?.agentId;
    if (typeof agentId === 'string' && partitionOf(agentId, this.#partitions) !== partition) {
      return Promise.reject(
        new SwitchboardError(
          ErrorCodes.BAD_REQUEST,
          `Agent ${agentId} does not belong to partition ${partition}; the caller and the runtime nodes disagree on the number of partitions.`,
        ),
      );
    }
    const tenure = this.#tenures.get(partition);
    try {
      if (!tenure) throw tenureLost(`Node ${this.options.nodeId} does not serve partition ${partition}`);
      tenure.assert();
    } catch (err) {
      return Promise.reject(err);
    }
    if (operation === PARTITION_PROBE) {
      const streak = this.#failing.get(partition);
      if (streak && this.#red(streak)) return Promise.reject(new SwitchboardError(ErrorCodes.UNAVAILABLE, `Partition ${partition} on node ${this.options.nodeId}: ${describe(streak)}.`, { retryable: true }));
      return Promise.resolve({ node: this.options.nodeId, partition });
    }
    return this.options.system.dispatch(operation, data, tenure).then(
      (result) => {
        this.#failing.delete(partition);
        return result;
      },
      (err: unknown) => {
        if (isInfrastructureFailure(err) && this.leases.holds(partition)) this.#failed(partition, err);
        else this.#failing.delete(partition);
        throw err;
      },
    );
  }

  /**
   * Partitions this node holds but cannot serve: not listening, or whose operations keep failing.
   * Empty when all is well; a runtime node's readiness turns red on anything here.
   */
  problems(): string[] {
    const problems: string[] = [];
    for (const partition of this.leases.owned()) {
      if (this.#tenures.has(partition) && !this.#listening(partition)) problems.push(`partition ${partition} held but not listening`);
      const streak = this.#failing.get(partition);
      if (streak && this.#red(streak)) problems.push(`partition ${partition}: ${describe(streak)}`);
    }
    return problems;
  }

  /**
   * What keeps this node from holding its share of the partitions: its store does not answer, its
   * lease heartbeat has not gone through for two TTLs, or others keep the partitions preferred for it.
   */
  leaseProblems(): string[] {
    return [...(this.#store && !this.#store.fit ? [this.#store.problem] : []), ...this.leases.problems()];
  }

  /** True while the partition's subscription delivers. */
  #listening(partition: number): boolean {
    const sub = this.#subscriptions.get(partition);
    return sub !== undefined && !(sub.isClosed?.() ?? false);
  }

  /** Red while failures keep coming: a streak with no failure for two lease TTLs (and no success either) is old news. */
  #red(streak: Streak): boolean {
    return streak.red && Date.now() - streak.lastAt < 2 * this.leases.ttlMs;
  }

  #failed(partition: number, err: unknown): void {
    const now = Date.now();
    const streak = this.#failing.get(partition) ?? { since: now, lastAt: now, count: 0, restarts: 0, restartedAt: 0, red: false, last: '' };
    streak.count++;
    streak.lastAt = now;
    streak.last = (err as Error)?.message ?? String(err);
    this.#failing.set(partition, streak);
    // A run of failures over at least a renewal period, not one unlucky request.
    if (streak.count < FAILURES_BEFORE_RESTART || now - streak.since < this.leases.ttlMs / 4) return;
    streak.red = true;
    if (now - streak.restartedAt < this.leases.ttlMs) return;
    streak.restarts++;
    streak.restartedAt = now;
    this.options.logger?.warn({ node: this.options.nodeId, partition, failures: streak.count, err: streak.last }, `partition ${partition}: operations keep failing; restarting it (its actors reload from the store)`);
    this.#restart(partition);
  }

  /**
   * The watchdog, every renewal period: a partition held and taken up must have a live subscription.
   * One that is gone (closed by the connection or the server) is made again, and said so.
   */
  #check(): void {
    for (const partition of this.leases.owned()) {
      if (!this.#tenures.has(partition) || this.#listening(partition)) continue;
      this.options.logger?.warn({ node: this.options.nodeId, partition }, `partition ${partition} held but not listening; subscribing again`);
      try {
        this.#subscribe(partition);
      } catch (err) {
        // The connection is closed for good: the lease lapses and another node takes the partition.
        this.options.logger?.warn({ err, node: this.options.nodeId, partition }, `partition ${partition} could not be subscribed again`);
      }
    }
  }

  /** Drops the partition's actors (their state reloads from the store) and its subscription, then listens again. */
  #restart(partition: number): void {
    void this.options.system.forget((id) => partitionOf(id, this.#partitions) === partition);
    try {
      this.#subscribe(partition);
    } catch (err) {
      this.options.logger?.warn({ err, node: this.options.nodeId, partition }, `partition ${partition} could not be subscribed again`);
    }
  }

  #subscribe(partition: number): void {
    this.#subscriptions.get(partition)?.unsubscribe();
    this.#subscriptions.set(
      partition,
      this.options.bus.subscribe(partitionOperationsWildcard(partition), (data, subject) => this.serve(partition, operationOfAgentSubject(subject), data), {
        queue: 'runtime',
      }),
    );
  }

  /** The tenure this node serves a partition under now; undefined when it does not serve it. */
  tenureOf(partition: number): Tenure | undefined {
    return this.#tenures.get(partition);
  }

  async #attach(partition: number, token: number): Promise<void> {
    this.#taking.set(partition, token);
    const fence = this.options.tenures ? { partition, token } : undefined;
    if (fence) {
      await this.#record(fence);
      // Handed over, lapsed or taken again while its tenure was recorded: a later tenure (or another node) serves it.
      if (!this.leases.holds(partition) || this.#taking.get(partition) !== token) return;
    }
    this.#taking.delete(partition);
    this.#tenures.set(partition, new LeaseTenure(partition, fence, this.leases, this.options.nodeId));
    this.#failing.delete(partition);
    // Anything cached from an earlier tenure may be stale: another node may have served these agents since.
    void this.options.system.forget((id) => partitionOf(id, this.#partitions) === partition);
    this.#subscribe(partition);
    this.options.onTakenUp?.(partition);
  }

  async #detach(partition: number, reason: LeaseEnd): Promise<void> {
    this.#stepDown(partition);
    const drained = this.options.system.forget((id) => partitionOf(id, this.#partitions) === partition);
    // A handover waits for the mailboxes so the next holder starts after the last write; a lost lease cannot wait.
    if (reason === 'released' || reason === 'stopped') await drained;
  }

  /**
   * Records the new tenure in the store before the partition is served. A newer token can be there only
   * from a lease bucket made anew (its revisions start again): while this node holds the lease no one
   * else can have taken it since, so the tenure is taken over.
   */
  async #record(fence: TenureRecord): Promise<void> {
    const tenures = this.options.tenures!;
    if (await tenures.record(fence, this.options.nodeId)) return;
    if (!this.leases.holds(fence.partition)) throw new Error(`partition ${fence.partition} was lost while its tenure was recorded`);
    this.options.logger?.warn({ partition: fence.partition, token: fence.token }, 'a newer tenure from an earlier lease bucket; taking the partition over');
    await tenures.takeOver(fence, this.options.nodeId);
  }

  #stepDown(partition: number): void {
    this.#subscriptions.get(partition)?.unsubscribe();
    this.#subscriptions.delete(partition);
    this.#tenures.delete(partition);
    this.#taking.delete(partition);
    this.#failing.delete(partition);
  }
}


/** Consecutive failed operations (over at least a renewal period) after which a partition is restarted and shows red. */
const FAILURES_BEFORE_RESTART = 5;

interface Streak {
  since: number;
  lastAt: number;
  count: number;
  restarts: number;
  restartedAt: number;
  red: boolean;
  last: string;
}

function describe(streak: Streak): string {
  return `${streak.count} operations failed in a row since ${new Date(streak.since).toISOString()} (restarted ${streak.restarts}×; last: ${streak.last})`;
}

/** A failure of the node, not an answer about the request: what the caller did not cause (store or bus down, a bug, a time-out). */
function isInfrastructureFailure(err: unknown): boolean {
  if (!(err instanceof SwitchboardError)) return true;
  return err.code === ErrorCodes.INTERNAL || err.code === ErrorCodes.TIMEOUT || err.code === ErrorCodes.UNAVAILABLE;
}

/**
 * A gateway's readiness check that every partition is served: it asks each partition's holder (over
 * the bus, as agent operations go) and fails when one has gone unanswered, or kept failing, for
 * longer than `graceMs` (a partition moving between nodes is dark for less than a lease TTL, which
 * must not take every gateway out of a load balancer at once).
 */
export function partitionsServed(bus: Bus, partitions: number, graceMs: number): () => Promise<'ok'> {
  const darkSince = new Map<number, number>();
  return async () => {
    const now = Date.now();
    const answers = await Promise.all(
      Array.from({ length: partitions }, (_, partition) =>
        bus.request(agentSubject(partition, PARTITION_PROBE), {}, { timeoutMs: 2000 }).then(
          () => undefined,
          (err: unknown) => (err as Error)?.message ?? String(err),
        ),
      ),
    );
    const dark: string[] = [];
    answers.forEach((failure, partition) => {
      if (failure === undefined) return void darkSince.delete(partition);
      const since = darkSince.get(partition) ?? now;
      darkSince.set(partition, since);
      if (now - since >= graceMs) dark.push(`partition ${partition} not served for ${now - since} ms (${failure})`);
    });
    if (dark.length > 0) throw new Error(dark.join('; '));
    return 'ok';
  };
}
