import type { AgentClient } from '../agents/agent-client.js';
import { NatsLiveReach } from '../agents/live-reach.js';
import { AudioOnDemand } from '../audio/audio-on-demand.js';
import { TokenService } from '../auth/token-service.js';
import type { NatsBus } from '../bus/nats-bus.js';
import { checkClusterSettings, clusterNodeId, connectClusterBus, natsUrlForLog } from '../cluster/cluster-mode.js';
import { KvCallDirectory } from '../voice/kv-call-directory.js';
import { partitionsServed } from '../cluster/partitioned-actors.js';
import { DriverSet } from '../drivers/registry.js';
import { RuntimeEvents, receiveEvents } from '../events.js';
import { ReadinessChecks } from '../health.js';
import { defaultLimits } from '../limits/limits.js';
import { StoredLimits } from '../limits/stored-limits.js';
import { isDemoMode } from '../modes.js';
import type { GatewayPorts } from '../ports.js';
import { SecretBox, loadSecretKey } from '../secrets.js';
import type { Store } from '../store/store.js';
import { AgentTurns } from '../voice/agent-turns.js';
import { ForwardedCallMessages } from '../voice/call-messages.js';
import { VoiceMessageStore } from '../voice/voice-messages.js';
import { CallVoicePort } from '../voice/voice-port.js';
import { VoiceService } from '../voice/voice-service.js';
import { gatewayPorts } from './gateway-ports.js';
import { ApiAccess, PublicAddress, agentClient, fillPools, loadProviderDrivers, openRoleStore, probeDatabase, probeNats, type AttachOptions, type RoleOptions } from './parts.js';
import { storedReads } from './stored-reads.js';
import type { ServedRuntime, TestPorts } from './served-runtime.js';

/** How long a call's directory entry lives: ringing (outbound) plus the longest call bounds when it is read. */
export function callDirectoryTtlMs(settings: RoleOptions['settings']): number {
  return (settings.VOICE_MAX_CALL_SECONDS + 300) * 1000;
}

/**
 * Starts a cluster gateway's runtime side (configured from NATS_URL, DATABASE_URL, CLUSTER_*): it
 * holds no actors and runs no deliveries; agent operations go over NATS to the node holding the
 * agent's partition. It keeps the store for tokens, idempotent answers and the operator's reads, the
 * drivers that verify webhooks and run the calls on its media sockets, and reaches agents' live
 * sessions over NATS.
 */
export async function startClusterGateway(options: RoleOptions): Promise<ClusterGatewayRuntime> {
  const { settings, logger } = options;
  checkClusterSettings(settings, 'gateway');
  const nodeId = clusterNodeId(settings);
  const store = await openRoleStore(options);
  let bus: NatsBus | undefined;
  try {
    bus = await connectClusterBus(settings, nodeId, 'gateway');
    logger.info({ nodeId, nats: natsUrlForLog(settings.NATS_URL) }, `start-up: cluster gateway ${nodeId} connected to NATS`);
    const calls = await KvCallDirectory.open(bus.connection, callDirectoryTtlMs(settings), undefined, settings.NATS_REPLICAS);
    const runtime = new ClusterGatewayRuntime(options, nodeId, store, bus, calls);
    await runtime.access.init();
    await fillPools(store, settings, runtime.demoMode);
    logger.info('start-up: runtime ready');
    return runtime;
  } catch (err) {
    await bus?.close();
    await store.close();
    throw err;
  }
}

/** A cluster gateway's runtime side, started and stopped as one. */
export class ClusterGatewayRuntime implements ServedRuntime {
  readonly role = 'gateway' as const;
  readonly settings: RoleOptions['settings'];
  readonly demoMode: boolean;
  readonly readiness = new ReadinessChecks();
  readonly events = new RuntimeEvents();
  readonly drivers = new DriverSet();
  readonly access: ApiAccess;
  readonly voice: VoiceService;
  readonly ports: GatewayPorts;
  readonly inspect: TestPorts;
  readonly #address = new PublicAddress();
  readonly #audio: AudioOnDemand;
  readonly #logger: RoleOptions['logger'];

  constructor(
    options: RoleOptions,
    readonly nodeId: string,
    private readonly store: Store,
    private readonly bus: NatsBus,
    calls: KvCallDirectory,
  ) {
    const { settings, logger } = options;
    this.settings = settings;
    this.#logger = logger;
    this.demoMode = isDemoMode(settings);
    const box = new SecretBox(loadSecretKey(settings.DATA_DIR, settings.SECRET_KEY));
    const tokens = new TokenService(store, box);
    this.access = new ApiAccess(settings, store, box, tokens);
    const agents: AgentClient = agentClient(bus, settings, box, { partitions: settings.CLUSTER_PARTITIONS, leaseTtlMs: settings.CLUSTER_LEASE_TTL_MS });
    const reach = new NatsLiveReach(bus);
    const publicBaseUrl = () => this.#address.url;
    // The calls this gateway holds: admitted by a node, found in the directory when their media socket
    // connects; what a call takes for the agent goes to the agent's actor.
    this.voice = new VoiceService(store, this.drivers, this.events, new AgentTurns(box, logger, settings.VOICE_TURN_TIMEOUT_MS, reach), calls, new ForwardedCallMessages(agents), {
      mode: settings.VOICE_MODE,
      maxCallSeconds: settings.VOICE_MAX_CALL_SECONDS,
      publicBaseUrl,
    }, logger);
    this.#audio = new AudioOnDemand(this.events, logger);
    probeDatabase(this.readiness, store);
    probeNats(this.readiness, bus);
    // Not ready while a partition goes unserved: its agents would get 503s behind a green probe.
    this.readiness.register('partitions', partitionsServed(bus, settings.CLUSTER_PARTITIONS, 2 * settings.CLUSTER_LEASE_TTL_MS));
    // The runtime nodes' events, for this gateway's metrics.
    receiveEvents(this.events, bus);
    this.ports = gatewayPorts({
      settings,
      logger,
      demoMode: this.demoMode,
      store,
      box,
      access: this.access,
      agents,
      limits: new StoredLimits(store, defaultLimits(settings)),
      drivers: this.drivers,
      events: this.events,
      reach,
      voice: new CallVoicePort(this.voice, store, new VoiceMessageStore(settings.DATA_DIR, publicBaseUrl), this.#audio),
      readiness: this.readiness,
    });
    this.inspect = { stored: storedReads(store), bus, agents, tokens, readiness: this.readiness };
  }

  get generatedOrchestratorToken(): string | undefined {
    return this.access.generatedOrchestratorToken;
  }

  get publicBaseUrl(): string {
    return this.#address.url;
  }

  /** Loads the drivers (webhook verification and calls) and the audio workers of stream calls; a gateway delivers nothing itself. */
  async attach(options: AttachOptions): Promise<void> {
    this.#address.set(options.publicBaseUrl);
    await loadProviderDrivers(this.drivers, this.readiness, { settings: this.settings, logger: this.#logger }, options);
    if (this.settings.VOICE_MODE === 'stream' && this.drivers.for('stt')) await this.#audio.get().ready();
  }

  async stop(): Promise<void> {
    await this.#audio.close();
    await this.drivers.close();
    await this.bus.close();
    await this.store.close();
  }
}
