import type { AgentClient } from '../agents/agent-client.js';
import { LocalLiveReach } from '../agents/live-reach.js';
import { AudioOnDemand } from '../audio/audio-on-demand.js';
import { TokenService } from '../auth/token-service.js';
import type { Bus } from '../bus/bus.js';
import { MemoryBus } from '../bus/memory-bus.js';
import { warnIfDataDirOpen } from '../data-dir.js';
import { DataDirLock } from '../data-dir-lock.js';
import { DriverSet } from '../drivers/registry.js';
import { RuntimeEvents } from '../events.js';
import { ReadinessChecks } from '../health.js';
import { isDemoMode } from '../modes.js';
import type { GatewayPorts } from '../ports.js';
import { SecretBox, loadSecretKey } from '../secrets.js';
import type { Store } from '../store/store.js';
import { MemoryCallDirectory } from '../voice/call-directory.js';
import { CallVoicePort } from '../voice/voice-port.js';
import { InProcessWorkQueue } from '../work/in-process-work-queue.js';
import { AgentHost } from './agent-host.js';
import { gatewayPorts } from './gateway-ports.js';
import { ApiAccess, PublicAddress, agentClient, emailDomain, fillPools, loadProviderDrivers, openRoleStore, probeDatabase, type AttachOptions, type RoleOptions } from './parts.js';
import { storedReads } from './stored-reads.js';
import type { ServedRuntime, TestPorts } from './served-runtime.js';

export interface EmbeddedOptions extends RoleOptions {
  /** Defaults to the in-process bus. */
  bus?: Bus;
}

/**
 * Starts the embedded runtime: one process with the store (one server per data dir), the in-process
 * bus, the agents' actors, tokens and provisioning; agents are reached live through this process's
 * own sessions, and calls wait for their media connection in memory.
 */
export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedRuntime> {
  const { settings, logger } = options;
  // One server per data dir: a second one would keep its own limits and actors over the same store.
  const lock = await DataDirLock.acquire(settings.DATA_DIR);
  warnIfDataDirOpen(lock.dir, logger);
  try {
    const store = await openRoleStore(options);
    const bus = options.bus ?? new MemoryBus();
    const runtime = new EmbeddedRuntime(options, store, bus, lock);
    await runtime.access.init();
    await fillPools(store, settings, runtime.demoMode);
    runtime.host.actors.start();
    logger.info('start-up: runtime ready');
    return runtime;
  } catch (err) {
    await lock.release();
    throw err;
  }
}

/** The embedded runtime, started and stopped as one. */
export class EmbeddedRuntime implements ServedRuntime {
  readonly role = 'embedded' as const;
  readonly settings: EmbeddedOptions['settings'];
  readonly demoMode: boolean;
  readonly nodeId = undefined;
  readonly readiness = new ReadinessChecks();
  readonly events = new RuntimeEvents();
  readonly drivers = new DriverSet();
  readonly access: ApiAccess;
  readonly host: AgentHost;
  readonly ports: GatewayPorts;
  readonly inspect: TestPorts;
  readonly #address = new PublicAddress();
  readonly #audio: AudioOnDemand;
  readonly #logger: EmbeddedOptions['logger'];
  readonly #agents: AgentClient;

  constructor(
    options: EmbeddedOptions,
    private readonly store: Store,
    private readonly bus: Bus,
    private lock: DataDirLock | undefined,
  ) {
    const { settings, logger } = options;
    this.settings = settings;
    this.#logger = logger;
    this.demoMode = isDemoMode(settings);
    const box = new SecretBox(loadSecretKey(settings.DATA_DIR, settings.SECRET_KEY));
    const tokens = new TokenService(store, box);
    this.access = new ApiAccess(settings, store, box, tokens);
    const agents = agentClient(bus, settings, box);
    this.#agents = agents;
    const reach = new LocalLiveReach();
    this.host = new AgentHost({
      settings,
      logger,
      store,
      bus,
      box,
      tokens,
      events: this.events,
      drivers: this.drivers,
      agents,
      reach,
      calls: new MemoryCallDirectory(),
      emailDomain: emailDomain(settings, this.demoMode),
      address: this.#address,
      work: new InProcessWorkQueue({ logger }),
      // No other process can be at a send of this store: every unsent one at start is an orphan.
      sweepAgeMs: 0,
    });
    this.#audio = new AudioOnDemand(this.events, logger);
    probeDatabase(this.readiness, store);
    this.ports = gatewayPorts({
      settings,
      logger,
      demoMode: this.demoMode,
      store,
      box,
      access: this.access,
      agents,
      limits: this.host.limiter,
      drivers: this.drivers,
      events: this.events,
      reach,
      voice: new CallVoicePort(this.host.voice, store, this.host.voiceMessages, this.#audio),
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

  /** Loads the drivers, starts the audio workers of stream calls, and re-drives what the last run left. */
  async attach(options: AttachOptions): Promise<void> {
    this.#address.set(options.publicBaseUrl);
    await loadProviderDrivers(this.drivers, this.readiness, { settings: this.settings, logger: this.#logger }, options);
    // Stream-mode calls need the audio workers; starting them now keeps their start-up off the first call.
    if (this.settings.VOICE_MODE === 'stream' && this.drivers.for('stt')) await this.#audio.get().ready();
    // Every unsent send is an orphan of the last run.
    await this.host.start(this.#logger);
  }

  async stop(): Promise<void> {
    await this.host.actors.stop();
    await this.host.stop();
    await this.#audio.close();
    await this.drivers.close();
    await this.bus.close();
    await this.store.close();
    await this.lock?.release();
    this.lock = undefined;
  }
}
