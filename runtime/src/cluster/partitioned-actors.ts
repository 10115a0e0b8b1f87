import type { NatsConnection } from '@nats-io/transport-node';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { AGENT_SUBJECT, type ActorSystem } from '../actors/actor-system.js';
import type { Bus, Subscription } from '../bus/bus.js';
import type { Logger } from '../logger.js';
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

  constructor(private readonly options: PartitionedActorsOptions) {
    this.#partitions = options.partitions ?? DEFAULT_PARTITIONS;
    this.leases = new PartitionLeases({
      connection: options.connection,
      nodeId: options.nodeId,
      partitions: this.#partitions,
      ...(options.leaseTtlMs === undefined ? {} : { ttlMs: options.leaseTtlMs }),
      ...(options.bucket === undefined ? {} : { bucket: options.bucket }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      onAcquired: (partition) => this.#attach(partition),
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
    return this.options.system.dispatch(operation, data, fence);
  }

  #attach(partition: number): void {
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

  #stepDown(partition: number): void {
    this.#subscriptions.get(partition)?.unsubscribe();
    this.#subscriptions.delete(partition);
  }
}
