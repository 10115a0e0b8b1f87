import type { NatsConnection } from '@nats-io/transport-node';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { AGENT_SUBJECT, type ActorSystem } from '../actors/actor-system.js';
import type { Bus, Subscription } from '../bus/bus.js';
import type { Logger } from '../logger.js';
import type { TenureRepository } from '../store/repositories/tenures.js';
import { tenureLost, type Tenure, type TenureRecord } from '../tenure.js';
import { PartitionLeases, type LeaseEnd } from './partition-leases.js';
import { DEFAULT_PARTITIONS, partitionOf } from './partitions.js';

export interface PartitionedActorsOptions {
  /** Where the node takes agent operations (a NatsBus in a cluster). */
  bus: Bus;
  /** The NATS connection holding the lease bucket (the bus's own, or a second one). */
  connection: NatsConnection;
  system: ActorSystem;
  nodeId: string;
  partitions?: number;
  leaseTtlMs?: number;
  bucket?: string;
  logger?: Logger;
  /** Where each partition's tenure is recorded before the node serves it, so that writes are fenced in the store; without it they are not. */
  tenures?: Pick<TenureRepository, 'record' | 'takeOver'>;
}

/**
 * A node's tenure of one partition: it holds while the node holds the partition's lease, and fences
 * writes with the revision of the lease it was taken with (so a write of a lease lost and taken again
 * since is refused by the store, while its provider call may go on: see DECISIONS, "One Tenure").
 */
class LeaseTenure implements Tenure {
  constructor(
    readonly partition: number,
    readonly fence: TenureRecord | undefined,
    private readonly leases: PartitionLeases,
    private readonly lost: () => void,
    private readonly nodeId: string,
  ) {}

  holds(): boolean {
    return this.leases.holds(this.partition);
  }

  assert(): void {
    if (this.holds()) return;
    this.lost();
    throw tenureLost(`Node ${this.nodeId} no longer holds partition ${this.partition}`);
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

  constructor(private readonly options: PartitionedActorsOptions) {
    this.#partitions = options.partitions ?? DEFAULT_PARTITIONS;
    this.leases = new PartitionLeases({
      connection: options.connection,
      nodeId: options.nodeId,
      partitions: this.#partitions,
      ...(options.leaseTtlMs === undefined ? {} : { ttlMs: options.leaseTtlMs }),
      ...(options.bucket === undefined ? {} : { bucket: options.bucket }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      onAcquired: (partition, token) => this.#attach(partition, token),
      onReleased: (partition, reason) => this.#detach(partition, reason),
    });
  }

  async start(): Promise<void> {
    this.options.system.start({ listen: false });
    await this.leases.start();
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
    return this.options.system.dispatch(operation, data, tenure);
  }

  /** The tenure this node serves a partition under now; undefined when it does not serve it. */
  tenureOf(partition: number): Tenure | undefined {
    return this.#tenures.get(partition);
  }

  async #attach(partition: number, token: number): Promise<void> {
    const fence = this.options.tenures ? { partition, token } : undefined;
    if (fence) {
      await this.#record(fence);
      // Handed over or lapsed while its tenure was recorded: another node serves it now.
      if (!this.leases.holds(partition)) return;
    }
    this.#tenures.set(
      partition,
      new LeaseTenure(partition, fence, this.leases, () => this.#stepDown(partition), this.options.nodeId),
    );
    // Anything cached from an earlier tenure may be stale: another node may have served these agents since.
    void this.options.system.forget((id) => partitionOf(id, this.#partitions) === partition);
    this.#subscriptions.get(partition)?.unsubscribe();
    this.#subscriptions.set(
      partition,
      this.options.bus.subscribe(`${AGENT_SUBJECT}.${partition}.*`, (data, subject) => this.serve(partition, subject.slice(subject.lastIndexOf('.') + 1), data), {
        queue: 'runtime',
      }),
    );
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
  }
}
