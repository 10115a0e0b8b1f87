import type { AgentClient } from '../agents/agent-client.js';
import { AudioOnDemand } from '../audio/audio-on-demand.js';
import { TokenService } from '../auth/token-service.js';
import type { Bus } from '../bus/bus.js';
import { DriverSet } from '../drivers/registry.js';
import { RuntimeEvents } from '../events.js';
import { ReadinessChecks } from '../health.js';
import type { Logger } from '../logger.js';
import type { Clock } from '../actors/operation.js';
import { isDemoMode } from '../modes.js';
import type { GatewayPorts } from '../ports.js';
import { SecretBox, loadSecretKey } from '../secrets.js';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/store.js';
import { gatewayPorts, type GatewayPortParts } from './gateway-ports.js';
import { ApiAccess, PublicAddress, agentClient, loadProviderDrivers, probeDatabase, type AttachOptions, type Placement, type RoleOptions } from './parts.js';
import type { TestPorts } from './served-runtime.js';
import { storedReads } from './stored-reads.js';
import { startTracing } from '../tracing.js';

/** What every role is made of, for the parts it builds on them (its agent host, voice service, ports). */
export interface RoleParts extends RoleOptions {
  store: Store;
  bus: Bus;
  box: SecretBox;
  tokens: TokenService;
  events: RuntimeEvents;
  drivers: DriverSet;
  agents: AgentClient;
  address: PublicAddress;
}

/**
 * What every role is built on: its settings, the store and bus it owns (closed last), the secret box,
 * tokens and agent client, readiness, events, drivers, the gateways' public address, and what tests
 * look at. Each role adds what it alone runs; nothing here asks which role it is.
 */
export class RoleProcess {
  readonly settings: Settings;
  readonly demoMode: boolean;
  readonly readiness = new ReadinessChecks();
  readonly events = new RuntimeEvents();
  readonly drivers = new DriverSet();
  readonly inspect: TestPorts;
  protected readonly logger: Logger;
  protected readonly box: SecretBox;
  protected readonly tokens: TokenService;
  protected readonly agents: AgentClient;
  protected readonly address = new PublicAddress();
  protected readonly clock: Clock | undefined;
  /** The process's traces (OTEL_*; nothing is loaded when unset): started with the role, awaited before it serves, stopped (flushed) last. */
  readonly #tracing: Promise<() => Promise<void>>;

  /** `placement`: in a cluster, how agent operations spread over the partitions. */
  constructor(
    { settings, logger, clock }: RoleOptions,
    protected readonly store: Store,
    protected readonly bus: Bus,
    placement?: Placement,
  ) {
    this.settings = settings;
    this.logger = logger;
    this.clock = clock;
    this.demoMode = isDemoMode(settings);
    this.box = new SecretBox(loadSecretKey(settings.DATA_DIR, settings.SECRET_KEY));
    this.tokens = new TokenService(store, this.box, bus);
    this.agents = agentClient(bus, settings, this.box, placement);
    probeDatabase(this.readiness, store);
    this.inspect = { stored: storedReads(store), bus, agents: this.agents, tokens: this.tokens, readiness: this.readiness };
    this.#tracing = startTracing().catch((err: unknown) => {
      logger.warn({ err }, 'start-up: traces not started (OTEL_* settings); serving without them');
      return async () => undefined;
    });
  }

  /** What this process is made of, for the parts its role builds on it. */
  protected parts(): RoleParts {
    const { settings, logger, store, bus, box, tokens, events, drivers, agents, address, clock } = this;
    return { settings, logger, store, bus, box, tokens, events, drivers, agents, address, ...(clock ? { clock } : {}) };
  }

  /** Public base URL of the gateway; known once it listens. */
  get publicBaseUrl(): string {
    return this.address.url;
  }

  /** Takes the gateways' public address, then loads the provider drivers. */
  protected async loadDrivers(options: AttachOptions): Promise<void> {
    this.address.set(options.publicBaseUrl);
    await this.#tracing;
    await loadProviderDrivers(this.drivers, this.readiness, { settings: this.settings, logger: this.logger }, options);
  }

  /** Closes the drivers, then the bus and the store. */
  protected async close(): Promise<void> {
    await this.drivers.close();
    await this.bus.close();
    await this.store.close();
    await (await this.#tracing)();
  }
}

/** A role that serves the API (embedded, cluster gateway): callers' checks, the audio workers of stream calls, its ports. */
export class ServingProcess extends RoleProcess {
  readonly access: ApiAccess;
  protected readonly audio: AudioOnDemand;

  constructor(options: RoleOptions, store: Store, bus: Bus, placement?: Placement) {
    super(options, store, bus, placement);
    this.access = new ApiAccess(this.settings, store, this.box, this.tokens);
    this.audio = new AudioOnDemand(this.events, this.logger);
  }

  /** Printed once by the CLI when the first start generated the orchestrator token. */
  get generatedOrchestratorToken(): string | undefined {
    return this.access.generatedOrchestratorToken;
  }

  /** The ports a gateway reaches this process through; the role gives the limits, the live reach, the voice port and how inbound messages reach their agents. */
  protected gatewayPorts(own: Pick<GatewayPortParts, 'limits' | 'reach' | 'voice' | 'delivery'>): GatewayPorts {
    return gatewayPorts({ ...this.parts(), demoMode: this.demoMode, access: this.access, readiness: this.readiness, ...own });
  }

  /** Loads the drivers, and the audio workers of stream calls (their start-up kept off the first call). */
  async attach(options: AttachOptions): Promise<void> {
    await this.loadDrivers(options);
    if (this.settings.VOICE_MODE === 'stream' && this.drivers.for('stt')) await this.audio.get().ready();
  }

  /** Closes the audio workers, then the drivers, the bus and the store. */
  protected override async close(): Promise<void> {
    await this.audio.close();
    await super.close();
  }
}
