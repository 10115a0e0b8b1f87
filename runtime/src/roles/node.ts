import { NatsLiveReach, followPresence } from '../agents/live-reach.js';
import type { NatsBus } from '../bus/nats-bus.js';
import { NodeDisconnects } from '../cluster/node-disconnects.js';
import { PartitionedActors, type PartitionedActorsOptions } from '../cluster/partitioned-actors.js';
import { partitionOf } from '../cluster/partitions.js';
import { forwardEvents } from '../events.js';
import { resumeAfterMs } from '../outbox/resume-delay.js';
import { JetStreamWorkQueue } from '../work/jetstream-work-queue.js';
import { AgentHost } from './agent-host.js';
import { clusterPlacement, emailDomain, fillPools, probeNats, startClusterProcess, type AttachOptions, type ClusterFoundation, type RoleOptions } from './parts.js';
import { RoleProcess } from './role-process.js';

export interface NodeOptions extends RoleOptions {
  /** The lease bucket's name (tests keep their nodes apart); `sb_leases` by default. */
  leaseBucket?: PartitionedActorsOptions['bucket'];
}

/**
 * Starts a cluster runtime node (configured from NATS_URL, DATABASE_URL, CLUSTER_*): it holds the
 * actors of the partitions it leases, runs the drivers and the deliveries (durable work any node may
 * run), delivers to live sessions through whichever gateway holds them, and serves no API. It takes
 * its leases in {@link RuntimeNodeRuntime.attach}, once its drivers are loaded.
 */
export function startNode(options: NodeOptions): Promise<RuntimeNodeRuntime> {
  return startClusterProcess(options, 'node', 'runtime', async (foundation) => {
    const runtime = new RuntimeNodeRuntime(options, foundation);
    await fillPools(foundation.store, options.settings, runtime.demoMode);
    return runtime;
  });
}

/** A running cluster runtime node. */
export class RuntimeNodeRuntime extends RoleProcess {
  readonly role = 'node' as const;
  readonly nodeId: string;
  readonly host: AgentHost;
  /** The partitions this node serves. */
  readonly placement: PartitionedActors;
  #disconnects: NodeDisconnects | undefined;

  constructor(options: NodeOptions, { nodeId, store, bus, calls }: ClusterFoundation) {
    const { settings, logger } = options;
    const lease = clusterPlacement(settings);
    super(options, store, bus, lease);
    this.nodeId = nodeId;
    // Nodes hold no sessions: deliveries go to whichever gateway holds the agent's, asked only when one may.
    const reach = new NatsLiveReach(bus);
    followPresence(reach, bus);
    this.host = new AgentHost({
      ...this.parts(),
      reach,
      calls,
      emailDomain: emailDomain(settings, this.demoMode),
      // Shared by the runtime nodes: an item a node took and did not ack (it died) goes to another after one lease TTL.
      work: new JetStreamWorkQueue({ connection: bus.connection, ackWaitMs: settings.CLUSTER_LEASE_TTL_MS, replicas: settings.NATS_REPLICAS, logger }),
      sweepAgeMs: resumeAfterMs(settings.CLUSTER_LEASE_TTL_MS, settings.SEND_TIMEOUT_MS),
    });
    probeNats(this.readiness, bus);
    // The gateways' metrics count this node's events.
    forwardEvents(this.events, bus);
    this.placement = new PartitionedActors({
      connection: bus.connection,
      nodeId,
      ...lease,
      replicas: settings.NATS_REPLICAS,
      ...(options.leaseBucket === undefined ? {} : { bucket: options.leaseBucket }),
      bus,
      system: this.host.actors,
      logger,
      tenures: store.tenures,
      storeCheck: () => store.db.ping(),
      // The sends the node before left unsent are this node's to finish, once any still in flight there has ended.
      onTakenUp: (partition) => this.host.outbox.takeOver((agentId) => partitionOf(agentId, lease.partitions) === partition),
    });
    // Not ready while a partition it holds is not listening or its operations keep failing (the node restarts it meanwhile).
    const placement = this.placement;
    this.readiness.register('partitions', async () => {
      const problems = placement.problems();
      if (problems.length > 0) throw new Error(problems.join('; '));
      return 'ok';
    });
    // Not ready while it cannot hold its share: its store does not answer, its lease heartbeat has not gone through for two TTLs, or others keep its share.
    this.readiness.register('leases', async () => {
      const problems = placement.leaseProblems();
      if (problems.length > 0) throw new Error(problems.join('; '));
      return 'ok';
    });
  }

  /** The partitions this node holds now. */
  partitions(): number[] {
    return this.placement.leases.owned();
  }

  /**
   * Loads the drivers, then takes this node's share of the partitions (loading drivers can block the
   * event loop for longer than a lease lives, and a node holds partitions only while it can serve
   * them), starts the durable work, and re-drives what was left pending.
   */
  async attach(options: AttachOptions): Promise<void> {
    await this.loadDrivers(options);
    await this.placement.start();
    // A peer's crash heard from the NATS server ends its leases at once (with NATS_SYSTEM_USER set).
    this.#disconnects = await NodeDisconnects.follow(this.settings, this.nodeId, (node) => void this.placement.leases.endNode(node), this.logger);
    // The outbox's start-up sweep finishes sends left unsent long enough ago; its takeovers, those of the partitions taken up.
    await this.host.start(this.logger);
  }

  /** Hands its partitions over, drains the actors and deliveries, then closes drivers, the bus and the store. */
  async stop(): Promise<void> {
    await this.#disconnects?.close().catch(() => undefined);
    await this.placement.stop();
    await this.host.actors.stop();
    // Retries stop first: a queued delivery still pending is handed back for another node.
    await this.host.stop();
    await this.close();
  }
}
