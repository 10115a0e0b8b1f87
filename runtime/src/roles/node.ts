import type { AgentClient } from '../agents/agent-client.js';
import { NatsLiveReach } from '../agents/live-reach.js';
import { TokenService } from '../auth/token-service.js';
import type { NatsBus } from '../bus/nats-bus.js';
import { checkClusterSettings, clusterNodeId, connectClusterBus, natsUrlForLog } from '../cluster/cluster-mode.js';
import { KvCallDirectory } from '../cluster/kv-call-directory.js';
import { PartitionedActors, type PartitionedActorsOptions } from '../cluster/partitioned-actors.js';
import { DriverSet } from '../drivers/registry.js';
import { RuntimeEvents, forwardEvents } from '../events.js';
import { ReadinessChecks } from '../health.js';
import { isDemoMode } from '../modes.js';
import { SecretBox, loadSecretKey } from '../secrets.js';
import type { Store } from '../store/store.js';
import { resumeAfterMs } from '../outbox/resume-delay.js';
import { JetStreamWorkQueue } from '../work/jetstream-work-queue.js';
import { AgentHost } from './agent-host.js';
import { callDirectoryTtlMs } from './gateway.js';
import { PublicAddress, agentClient, emailDomain, fillPools, loadProviderDrivers, openRoleStore, probeDatabase, probeNats, type AttachOptions, type RoleOptions } from './parts.js';
import type { TestPorts } from './served-runtime.js';

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
export async function startNode(options: NodeOptions): Promise<RuntimeNodeRuntime> {
  const { settings, logger } = options;
  checkClusterSettings(settings, 'runtime');
  const nodeId = clusterNodeId(settings);
  const store = await openRoleStore(options);
  let bus: NatsBus | undefined;
  try {
    bus = await connectClusterBus(settings, nodeId, 'node');
    logger.info({ nodeId, nats: natsUrlForLog(settings.NATS_URL) }, `start-up: cluster node ${nodeId} connected to NATS`);
    const calls = await KvCallDirectory.open(bus.connection, callDirectoryTtlMs(settings), undefined, settings.NATS_REPLICAS);
    const runtime = new RuntimeNodeRuntime(options, nodeId, store, bus, calls);
    await fillPools(store, settings, isDemoMode(settings));
    logger.info('start-up: runtime ready');
    return runtime;
  } catch (err) {
    await bus?.close();
    await store.close();
    throw err;
  }
}

/** A running cluster runtime node. */
export class RuntimeNodeRuntime {
  readonly role = 'node' as const;
  readonly settings: RoleOptions['settings'];
  readonly readiness = new ReadinessChecks();
  readonly events = new RuntimeEvents();
  readonly drivers = new DriverSet();
  readonly host: AgentHost;
  /** The partitions this node serves. */
  readonly placement: PartitionedActors;
  readonly inspect: TestPorts;
  readonly #address = new PublicAddress();
  readonly #agents: AgentClient;
  readonly #logger: RoleOptions['logger'];

  constructor(
    options: NodeOptions,
    readonly nodeId: string,
    private readonly store: Store,
    private readonly bus: NatsBus,
    calls: KvCallDirectory,
  ) {
    const { settings, logger } = options;
    this.settings = settings;
    this.#logger = logger;
    const box = new SecretBox(loadSecretKey(settings.DATA_DIR, settings.SECRET_KEY));
    const tokens = new TokenService(store, box);
    const lease = { partitions: settings.CLUSTER_PARTITIONS, leaseTtlMs: settings.CLUSTER_LEASE_TTL_MS };
    this.#agents = agentClient(bus, settings, box, lease);
    // Nodes hold no sessions: deliveries go to whichever gateway holds the agent's, asked only when one may.
    const reach = new NatsLiveReach(bus);
    followPresence(reach, bus);
    this.host = new AgentHost({
      settings,
      logger,
      store,
      bus,
      box,
      tokens,
      events: this.events,
      drivers: this.drivers,
      agents: this.#agents,
      reach,
      calls,
      emailDomain: emailDomain(settings, isDemoMode(settings)),
      address: this.#address,
      // Shared by the runtime nodes: an item a node took and did not ack (it died) goes to another after one lease TTL.
      work: new JetStreamWorkQueue({ connection: bus.connection, ackWaitMs: settings.CLUSTER_LEASE_TTL_MS, replicas: settings.NATS_REPLICAS, logger }),
      sweepAgeMs: resumeAfterMs(settings.CLUSTER_LEASE_TTL_MS, settings.SEND_TIMEOUT_MS),
    });
    probeDatabase(this.readiness, store);
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
    });
    // Not ready while a partition it holds is not listening or its operations keep failing (the node restarts it meanwhile).
    const placement = this.placement;
    this.readiness.register('partitions', async () => {
      const problems = placement.problems();
      if (problems.length > 0) throw new Error(problems.join('; '));
      return 'ok';
    });
    this.inspect = { store, bus, agents: this.#agents, tokens, readiness: this.readiness };
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
    this.#address.set(options.publicBaseUrl);
    await loadProviderDrivers(this.drivers, this.readiness, { settings: this.settings, logger: this.#logger }, options);
    await this.placement.start();
    // The outbox finishes journaled sends; its sweep catches older ones (a node that died between the store and the journal).
    await this.host.start(this.#logger);
  }

  /** Hands its partitions over, drains the actors and deliveries, then closes drivers, the bus and the store. */
  async stop(): Promise<void> {
    await this.placement.stop();
    await this.host.actors.stop();
    // Retries stop first: a queued delivery still pending is handed back for another node.
    await this.host.stop();
    await this.drivers.close();
    await this.bus.close();
    await this.store.close();
  }
}

/** Follows the gateways' presence; announcements missed while the connection was down make the view unsure until they are heard again. */
function followPresence(reach: NatsLiveReach, bus: NatsBus): void {
  const presence = reach.followPresence();
  void (async () => {
    for await (const status of bus.connection.status()) if (status.type === 'disconnect' || status.type === 'reconnect') presence.resync();
  })().catch(() => undefined);
}
