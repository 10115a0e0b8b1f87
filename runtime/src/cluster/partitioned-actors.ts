import type { NatsConnection } from '@nats-io/transport-node';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { AGENT_SUBJECT, type ActorSystem } from '../actors/actor-system.js';
import type { Bus, Subscription } from '../bus/bus.js';
import type { Logger } from '../logger.js';
import type { PartitionFenceRepository, PartitionTenure } from '../store/repositories/partition-fences.js';
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
  replicas?: number;
  logger?: Logger;
  /** Where each partition's tenure is written before the node serves it, so that writes can be fenced in the store. */
  fences?: Pick<PartitionFenceRepository, 'claim' | 'force'>;
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
  /** The fencing token of each partition served, with which its writes are fenced. */
  readonly #tokens = new Map<number, number>();

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
    const fence = () => {
      if (this.leases.holds(partition)) return;
      this.#stepDown(partition);
      throw new SwitchboardError(ErrorCodes.UNAVAILABLE, `Node ${this.options.nodeId} no longer holds partition ${partition}; retry.`, { retryable: true });
    };
    try {
      fence();
    } catch (err) {
      return Promise.reject(err);
    }
    const token = this.#tokens.get(partition);
    return this.options.system.dispatch(operation, data, fence, this.options.fences && token !== undefined ? { partition, token } : undefined);
  }

  async #attach(partition: number, token: number): Promise<void> {
    if (this.options.fences) {
      await this.#claimFence({ partition, token });
      // Handed over or lapsed while its fence was written: another node serves it now.
      if (!this.leases.holds(partition)) return;
    }
    this.#tokens.set(partition, token);
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
   * Writes the new tenure to the store before the partition is served. A newer token can be there only
   * from a lease bucket made anew (its revisions start again): while this node holds the lease no one
   * else can have taken it since, so the tenure is taken over.
   */
  async #claimFence(tenure: PartitionTenure): Promise<void> {
    const fences = this.options.fences!;
    if (await fences.claim(tenure, this.options.nodeId)) return;
    if (!this.leases.holds(tenure.partition)) throw new Error(`partition ${tenure.partition} was lost while its fence was written`);
    this.options.logger?.warn({ partition: tenure.partition, token: tenure.token }, 'a newer fence from an earlier lease bucket; taking the partition over');
    await fences.force(tenure, this.options.nodeId);
  }

  #stepDown(partition: number): void {
    this.#subscriptions.get(partition)?.unsubscribe();
    this.#subscriptions.delete(partition);
    this.#tokens.delete(partition);
  }
}
