import type { DriverContext } from '@switchboard/sdk';
import { ActorSystem, type AgentOperations, type OperationHandler } from './actors/actor-system.js';
import { checkRequest, isOperationName } from './agents/catalogue.js';
import { AgentClient } from './agents/agent-client.js';
import { lifecycleOperations } from './agents/operations.js';
import { AuthLockout } from './auth/lockout.js';
import { SessionEpoch } from './auth/session-epoch.js';
import { TokenService } from './auth/token-service.js';
import type { Bus } from './bus/bus.js';
import { MemoryBus } from './bus/memory-bus.js';
import { UsageReports } from './billing/reports.js';
import { Tariffs } from './billing/tariffs.js';
import { warnIfDataDirOpen } from './data-dir.js';
import { DataDirLock } from './data-dir-lock.js';
import { DeliveryService } from './delivery/delivery-service.js';
import { Limiter } from './limits/limiter.js';
import { defaultLimits } from './limits/limits.js';
import { limitOperations } from './limits/operations.js';
import { driverSpecs } from './drivers/driver-settings.js';
import { loadDriver, type DriverSpec, type PackageImporter } from './drivers/loader.js';
import { DriverSet } from './drivers/registry.js';
import { RuntimeEvents, forwardEvents, receiveEvents } from './events.js';
import { ReadinessChecks } from './health.js';
import type { Logger } from './logger.js';
import { messagingOperations } from './messaging/operations.js';
import { DEMO_EMAIL_DOMAIN, demoPools, isDemoMode } from './modes.js';
import { Provisioner } from './provisioning/provisioner.js';
import { SecretBox, loadSecretKey } from './secrets.js';
import type { Settings } from './settings/schema.js';
import { AudioWorkerPool } from './audio/audio-worker-pool.js';
import { AgentTurns } from './voice/agent-turns.js';
import { voiceOperations } from './voice/operations.js';
import { VoiceMessageStore } from './voice/voice-messages.js';
import { VoiceService } from './voice/voice-service.js';
import type { PoolName } from './store/repositories/pools.js';
import { openStore, type Store } from './store/store.js';
import { PartitionedActors, type PartitionedActorsOptions } from './cluster/partitioned-actors.js';
import { checkClusterSettings, clusterNodeId, connectClusterBus, liveSubject, type ClusterRole } from './cluster/cluster-mode.js';
import { Outbox } from './outbox/outbox.js';
import { resumeAfterMs } from './outbox/resume-delay.js';
import { InProcessWorkQueue } from './work/in-process-work-queue.js';
import { JetStreamWorkQueue } from './work/jetstream-work-queue.js';
import type { WorkQueue } from './work/work-queue.js';
import { SharedCallSessions } from './cluster/shared-call-sessions.js';
import type { NatsBus } from './bus/nats-bus.js';
import { OperatorReads } from './admin/operator-reads.js';
import { AgentReach } from './agents/agent-reach.js';
import { agentView } from './agents/view.js';
import { verifyWebhook } from './drivers/verify-webhook.js';
import type { GatewayPorts } from './ports.js';
import { RelayCall } from './voice/relay-call.js';
import { StreamCall } from './voice/stream-call.js';

/** How long a process may go on using the admin sessions' epoch it read: how late a sign-out elsewhere reaches it. */
const SESSION_EPOCH_MAX_AGE_MS = 2000;

export interface RuntimeOptions {
  settings: Settings;
  logger: Logger;
  /** Defaults to the in-process bus. */
  bus?: Bus;
  /** Cluster mode: serve only the agent partitions this node holds leases on (see docs/cluster.md). */
  placement?: Omit<PartitionedActorsOptions, 'bus' | 'system' | 'logger'>;
  /**
   * A cluster process, configured from the settings (NATS_URL, DATABASE_URL, CLUSTER_*): a `gateway`
   * reaches the agents over NATS and holds no actors; a `node` holds the actors of the partitions it
   * leases and runs deliveries as durable work. Absent: embedded.
   */
  cluster?: ClusterRole;
}

/** The embedded runtime: store, bus, agent actors, tokens and provisioning, started and stopped as one. */
export class Runtime {
  readonly demoMode: boolean;
  readonly emailDomain: string;
  readonly readiness = new ReadinessChecks();
  readonly lockout: AuthLockout;
  /** The admin UI sessions' epoch, kept in the store. */
  readonly sessionEpoch: SessionEpoch;
  readonly agents: AgentClient;
  readonly events = new RuntimeEvents();
  readonly drivers = new DriverSet();
  readonly delivery: DeliveryService;
  readonly outbox: Outbox;
  readonly tariffs: Tariffs;
  readonly limiter: Limiter;
  readonly reports: UsageReports;
  readonly voice: VoiceService;
  readonly voiceMessages: VoiceMessageStore;
  #publicBaseUrl = '';
  #audio: AudioWorkerPool | undefined;
  #lock: DataDirLock | undefined;
  /** The partitions this node serves, in cluster mode. */
  placement: PartitionedActors | undefined;
  /** What this process is in a cluster; undefined when embedded. */
  readonly cluster: ClusterRole | undefined;
  /** This process's name in a cluster. */
  readonly nodeId: string | undefined;
  #ports: GatewayPorts | undefined;
  /** Printed once by the CLI when the first start generated the orchestrator token. */
  generatedOrchestratorToken: string | undefined;

  private constructor(
    readonly settings: Settings,
    readonly logger: Logger,
    readonly store: Store,
    readonly bus: Bus,
    readonly box: SecretBox,
    readonly tokens: TokenService,
    readonly actors: ActorSystem,
    placement: RuntimeOptions['placement'],
    cluster: { role: ClusterRole; nodeId: string } | undefined,
    work: WorkQueue,
  ) {
    this.cluster = cluster?.role;
    this.nodeId = cluster?.nodeId;
    this.demoMode = isDemoMode(settings);
    this.emailDomain = settings.EMAIL_DOMAIN || (this.demoMode ? DEMO_EMAIL_DOMAIN : '');
    this.lockout = new AuthLockout({
      attempts: settings.AUTH_LOCKOUT_ATTEMPTS,
      windowMs: settings.AUTH_LOCKOUT_WINDOW_SECONDS * 1000,
      lockMs: settings.AUTH_LOCKOUT_SECONDS * 1000,
    });
    this.sessionEpoch = new SessionEpoch(store.settings, box, SESSION_EPOCH_MAX_AGE_MS);
    this.tariffs = new Tariffs(settings.TARIFFS);
    this.limiter = new Limiter(store, defaultLimits(settings), this.events);
    this.reports = new UsageReports(store, this.limiter, () => this.markupPercent());
    // A bus request must outlive the slowest operation: every send attempt timing out, plus backoff.
    const sendBudget = settings.SEND_MAX_ATTEMPTS * (settings.SEND_TIMEOUT_MS + settings.SEND_RETRY_BASE_MS * 2 ** settings.SEND_MAX_ATTEMPTS);
    this.agents = new AgentClient(
      bus,
      Math.max(15_000, sendBudget + 5_000),
      placement ? { partitions: placement.partitions, retryUnavailableMs: 3 * (placement.leaseTtlMs ?? 3000) } : cluster ? { partitions: settings.CLUSTER_PARTITIONS, retryUnavailableMs: 3 * settings.CLUSTER_LEASE_TTL_MS } : {},
    );
    this.delivery = new DeliveryService(store, box, this.events, logger, {
      attempts: settings.CALLBACK_MAX_ATTEMPTS,
      baseDelayMs: settings.CALLBACK_RETRY_BASE_MS,
      timeoutMs: settings.CALLBACK_TIMEOUT_MS,
    }, work);
    const resumeAfter = resumeAfterMs(settings.CLUSTER_LEASE_TTL_MS, settings.SEND_TIMEOUT_MS);
    // Embedded, no other process can be at a send of this store: every unsent one at start is an orphan.
    this.outbox = new Outbox({
      queue: work,
      agents: this.agents,
      store,
      logger,
      resumeAfterMs: resumeAfter,
      recheckMs: settings.CLUSTER_LEASE_TTL_MS,
      sweepAgeMs: cluster ? resumeAfter : 0,
    });
    this.voiceMessages = new VoiceMessageStore(settings.DATA_DIR, () => this.publicBaseUrl);
    this.voice = new VoiceService(store, this.drivers, this.delivery, this.events, new AgentTurns(box, logger, settings.VOICE_TURN_TIMEOUT_MS), {
      mode: settings.VOICE_MODE,
      maxCallSeconds: settings.VOICE_MAX_CALL_SECONDS,
      publicBaseUrl: () => this.publicBaseUrl,
    }, logger);
    this.readiness.register('database', async () => {
      await store.db.ping();
      return 'ok';
    });
  }

  static async start(options: RuntimeOptions): Promise<Runtime> {
    const { settings, logger } = options;
    // One server per data dir: a second one would keep its own limits and actors over the same store.
    // Cluster nodes share their store by design; placement keeps one actor per agent among them.
    const lock = options.placement || options.cluster ? undefined : await DataDirLock.acquire(settings.DATA_DIR);
    if (lock) warnIfDataDirOpen(lock.dir, logger);
    try {
      const runtime = await Runtime.#start(options);
      runtime.#lock = lock;
      return runtime;
    } catch (err) {
      await lock?.release();
      throw err;
    }
  }

  static async #start(options: RuntimeOptions): Promise<Runtime> {
    const { settings, logger } = options;
    if (options.cluster) checkClusterSettings(settings, options.cluster === 'node' ? 'runtime' : 'gateway');
    const cluster = options.cluster ? { role: options.cluster, nodeId: clusterNodeId(settings) } : undefined;
    const store = await openStore({ dataDir: settings.DATA_DIR, synchronous: settings.SQLITE_SYNCHRONOUS, databaseUrl: settings.DATABASE_URL });
    logger.info({ store: store.db.dialect, dataDir: settings.DATA_DIR }, 'start-up: store open and migrated');
    const box = new SecretBox(loadSecretKey(settings.DATA_DIR, settings.SECRET_KEY));
    const tokens = new TokenService(store, box);
    let bus: Bus;
    try {
      bus = options.bus ?? (cluster ? await connectClusterBus(settings, cluster.nodeId) : new MemoryBus());
    } catch (err) {
      await store.close();
      throw err;
    }
    if (cluster) logger.info({ nodeId: cluster.nodeId, nats: settings.NATS_URL }, `start-up: cluster ${cluster.role} ${cluster.nodeId} connected to NATS`);
    const placement =
      options.placement ??
      (cluster?.role === 'node'
        ? { connection: (bus as NatsBus).connection, nodeId: cluster.nodeId, partitions: settings.CLUSTER_PARTITIONS, leaseTtlMs: settings.CLUSTER_LEASE_TTL_MS }
        : undefined);
    // Whatever crosses the bus is checked against the catalogue before an actor sees it.
    const check = (name: string, payload: unknown) => {
      if (isOperationName(name)) checkRequest(name, payload);
    };
    const actors = new ActorSystem({ bus, store, logger, check, idleMs: settings.ACTOR_IDLE_SECONDS * 1000 });
    // Deliveries, callback retries and the send outbox run on one work queue: JetStream, shared by a cluster's
    // runtime nodes (a dead node's items come back to the others after one lease TTL, about when its agents do),
    // or in process.
    const work = cluster ? new JetStreamWorkQueue({ connection: (bus as NatsBus).connection, ackWaitMs: settings.CLUSTER_LEASE_TTL_MS, logger }) : new InProcessWorkQueue({ logger });
    const runtime = new Runtime(settings, logger, store, bus, box, tokens, actors, placement, cluster, work);
    const operations: AgentOperations = {
      ...lifecycleOperations(new Provisioner(store, tokens, box, runtime.emailDomain)),
      ...limitOperations(runtime.limiter),
      ...voiceOperations({
        voice: runtime.voice,
        limiter: runtime.limiter,
        tariffs: runtime.tariffs,
        delivery: runtime.delivery,
        voiceMessages: runtime.voiceMessages,
        logger,
        publicBaseUrl: () => runtime.publicBaseUrl,
      }),
      ...messagingOperations({
        drivers: runtime.drivers,
        delivery: runtime.delivery,
        events: runtime.events,
        box,
        logger,
        tariffs: runtime.tariffs,
        limiter: runtime.limiter,
        publicBaseUrl: () => runtime.publicBaseUrl,
        sendRetry: { attempts: settings.SEND_MAX_ATTEMPTS, baseDelayMs: settings.SEND_RETRY_BASE_MS, timeoutMs: settings.SEND_TIMEOUT_MS },
        outbox: runtime.outbox,
      }),
    };
    // `check` lets through only each operation's own request, which is what each handler is typed to take.
    actors.serve(operations as unknown as Record<string, OperationHandler>);
    // Runtime nodes serve no API: the gateways create (and print) the orchestrator token.
    if (cluster?.role !== 'node') {
      const { generatedOrchestratorToken } = await tokens.init(settings.ORCHESTRATOR_TOKEN);
      runtime.generatedOrchestratorToken = generatedOrchestratorToken;
      await runtime.sessionEpoch.init(tokens.orchestratorHash);
    }
    await runtime.#fillPools();
    if (cluster) await runtime.#joinCluster(bus as NatsBus);
    // A cluster gateway holds no actors: every agent operation goes over NATS to the node holding its partition.
    // A node takes its leases in attach(), once its drivers are loaded: loading them can block the event
    // loop for longer than a lease lives, and a node holds partitions only while it can serve them.
    if (placement) runtime.placement = new PartitionedActors({ ...placement, bus, system: actors, logger, tenures: store.tenures });
    else if (!cluster) actors.start();
    logger.info('start-up: runtime ready');
    return runtime;
  }

  /**
   * Cluster wiring. Every process checks NATS in its readiness and shares call sessions through
   * JetStream KV (a node admits a call, the gateway that takes its media WebSocket runs it; what the
   * call leaves for the agent goes back to the agent's actor); runtime nodes forward their events to
   * the gateways, whose metrics count them. A runtime node delivers to live sessions through whichever
   * gateway holds them (a request on the agent's live subject; no responders means no live session
   * anywhere).
   */
  async #joinCluster(bus: NatsBus): Promise<void> {
    this.readiness.register('nats', async () => {
      await bus.flush();
      return 'ok';
    });
    // A session is read when its call connects: ringing (outbound) plus the longest call bounds that.
    const calls = await SharedCallSessions.open(bus.connection, (this.settings.VOICE_MAX_CALL_SECONDS + 300) * 1000);
    if (this.cluster !== 'node') {
      receiveEvents(this.events, bus);
      this.voice.share(calls, async (session, message) => {
        await this.agents.call('callMessageTaken', session.agentId, { session, message });
      });
      return;
    }
    forwardEvents(this.events, bus);
    this.voice.share(calls);
    this.delivery.setLiveSink(
      (agentId, event) => bus.request<boolean>(liveSubject(agentId), event, { timeoutMs: 5000 }).then((taken) => taken === true, () => false),
      // Which gateway holds a session is known only by asking, so a status notification always asks.
      () => true,
    );
  }

  /** What a gateway reaches this runtime through (see ports.ts); built once. */
  ports(): GatewayPorts {
    this.#ports ??= this.#buildPorts();
    return this.#ports;
  }

  #buildPorts(): GatewayPorts {
    const { store, voice, drivers, events } = this;
    const reads = new OperatorReads(store);
    return {
      settings: this.settings,
      demoMode: this.demoMode,
      logger: this.logger,
      agents: this.agents,
      tokens: this.tokens,
      lockout: this.lockout,
      sessionEpoch: this.sessionEpoch,
      idempotency: store.idempotency,
      sealer: this.box,
      admin: {
        reads,
        agents: async () => (await store.agents.list()).map(agentView),
        agent: async (agentId) => {
          const record = await store.agents.get(agentId);
          return record && agentView(record);
        },
        pools: store.pools,
        reports: this.reports,
        markupPercent: () => this.markupPercent(),
        setMarkupPercent: (percent) => store.settings.set('markup_percent', String(percent)),
        drivers: () => drivers.all,
      },
      reach: new AgentReach(store, this.delivery, voice.turns, this.cluster === 'gateway' ? this.bus : undefined),
      metrics: { events, pendingDeadLetters: () => store.deadLetters.countPending() },
      webhooks: {
        contentTypes: (channel) => drivers.for(channel)?.webhooks?.contentTypes,
        verify: (channel, request) => verifyWebhook(drivers.require(channel), request, events),
      },
      voice: {
        verify: (webhook) => voice.verify(webhook),
        agentOfCall: (request) => voice.agentOfCall(request),
        voiceMessagePath: (name) => this.voiceMessages.pathOf(name),
        openCall: (mode, agentId, hangUp, send) =>
          mode === 'stream'
            ? new StreamCall(voice, store, agentId, hangUp, this.audio()).attach(send)
            : new RelayCall(voice, store, agentId, hangUp).attach((out) => send(JSON.stringify(out))),
        get liveCalls() {
          return voice.sessions.size;
        },
      },
      readiness: this.readiness,
    };
  }

  /** The global markup in percent: the admin API's value, else MARKUP_PERCENT. */
  async markupPercent(): Promise<number> {
    const stored = await this.store.settings.get('markup_percent');
    return stored === undefined ? this.settings.MARKUP_PERCENT : Number(stored);
  }

  /** The audio worker pool of stream-mode calls, started on first use. */
  audio(): AudioWorkerPool {
    this.#audio ??= new AudioWorkerPool({
      onFrameDelay: (seconds) => this.events.emit('frameDelay', seconds),
      onError: (err) => this.logger.error({ err }, 'audio worker failed'),
    });
    return this.#audio;
  }

  /** Public base URL of the gateway; known once it listens. */
  get publicBaseUrl(): string {
    return this.#publicBaseUrl;
  }

  /**
   * Connects the runtime to the outside once the gateway listens: loads the provider drivers by
   * package name (the configured built-in ones, then those DRIVERS names), chooses one per
   * capability, registers their readiness probes, and re-drives deliveries left pending. A cluster
   * node takes its partition leases here, after its drivers are loaded.
   */
  async attach(options: { publicBaseUrl: string; drivers: readonly DriverSpec[]; importer: PackageImporter }): Promise<void> {
    this.#publicBaseUrl = options.publicBaseUrl;
    const context: DriverContext = { logger: this.logger, publicBaseUrl: options.publicBaseUrl };
    const loaded = [];
    try {
      for (const spec of driverSpecs(options.drivers, this.settings.DRIVERS, this.settings)) loaded.push(await loadDriver(spec, options.importer, context));
      const s = this.settings;
      this.drivers.use(loaded, {
        sms: s.SMS_DRIVER,
        whatsapp: s.WHATSAPP_DRIVER,
        email: s.EMAIL_DRIVER,
        line: s.LINE_DRIVER,
        voice: s.VOICE_DRIVER,
        tts: s.TTS_DRIVER,
        stt: s.STT_DRIVER,
      });
    } catch (err) {
      await Promise.all(loaded.map((d) => d.close?.()));
      throw err;
    }
    this.logger.info({ drivers: this.drivers.all.map((d) => `${d.manifest.name}@${d.manifest.version}`), chosen: this.drivers.chosen }, 'start-up: drivers loaded');
    const probe = (kind: string, channel: 'sms' | 'email' | 'voice') => {
      this.readiness.register(kind, async () => {
        const driver = this.drivers.for(channel);
        if (!driver?.health) return 'disabled';
        const result = await driver.health();
        if (!result.ok) throw new Error(result.message);
        return 'ok';
      });
    };
    probe('telephony', 'sms');
    probe('email', 'email');
    this.readiness.register('tts', async () => {
      const driver = this.drivers.for('tts');
      if (!driver?.health) return 'disabled';
      const result = await driver.health();
      if (!result.ok) throw new Error(result.message);
      return 'ok';
    });
    // Stream-mode calls need the audio workers; starting them now keeps their start-up off the first call.
    if (this.settings.VOICE_MODE === 'stream' && this.drivers.for('stt')) await this.audio().ready();
    // Only now can this node serve agents: it takes its share of the partitions.
    await this.placement?.start();
    // A cluster gateway delivers nothing itself; runtime nodes run the queued deliveries.
    if (this.cluster === 'gateway') return;
    await this.delivery.start();
    await this.outbox.start();
    const pending = await this.delivery.recover();
    if (pending > 0) this.logger.info({ pending }, 're-driving deliveries left pending');
    await this.outbox.sweep();
  }

  /** Drains the actors and deliveries, then closes drivers, the bus and the store. */
  async stop(): Promise<void> {
    await this.placement?.stop();
    await this.actors.stop();
    // Retries stop first: a queued delivery still pending is handed back for another node.
    await this.delivery.stop();
    await this.outbox.stop();
    await this.#audio?.close();
    await this.drivers.close();
    await this.bus.close();
    await this.store.close();
    await this.#lock?.release();
    this.#lock = undefined;
  }

  async #fillPools(): Promise<void> {
    const list = (csv: string) => csv.split(',').map((s) => s.trim()).filter(Boolean);
    const configured: [PoolName, string[]][] = [
      ['phone', list(this.settings.POOL_PHONE_NUMBERS)],
      ['whatsapp', list(this.settings.POOL_WHATSAPP_SENDERS)],
      ['line', list(this.settings.POOL_LINE_CHANNELS)],
    ];
    const counts = await this.store.pools.counts();
    const demo = demoPools();
    for (const [pool, addresses] of configured) {
      const entries = addresses.length === 0 && this.demoMode && counts[pool].total === 0 ? demo[pool as keyof typeof demo] : addresses;
      if (entries.length > 0) await this.store.pools.add(pool, entries);
    }
  }
}
