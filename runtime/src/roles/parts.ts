import { join } from 'node:path';
import { ErrorCodes, SwitchboardError, type DriverContext } from '@switchboard/sdk';
import { AgentClient } from '../agents/agent-client.js';
import type { LiveReach } from '../agents/live-reach.js';
import { AuthLockout } from '../auth/lockout.js';
import { SessionEpoch } from '../auth/session-epoch.js';
import type { TokenService } from '../auth/token-service.js';
import type { NatsBus } from '../bus/nats-bus.js';
import type { Bus } from '../bus/bus.js';
import { clusterNodeId, connectClusterBus, natsUrlForLog, type ClusterRole } from '../cluster/cluster-mode.js';
import { driverSpecs } from '../drivers/driver-settings.js';
import { loadDriver, type DriverSpec, type PackageImporter } from '../drivers/loader.js';
import { driverChoices, type DriverSet } from '../drivers/registry.js';
import type { ReadinessChecks } from '../health.js';
import type { Logger } from '../logger.js';
import type { Clock } from '../actors/operation.js';
import { callbackFetch } from '../delivery/callback-address.js';
import { RecipientPlaces } from '../compliance/recipient-place.js';
import { RecordingConsent, parseAnnouncements } from '../compliance/recording-consent.js';
import { DEMO_EMAIL_DOMAIN, allowsPrivateNetworks, demoPools, isDemoMode } from '../modes.js';
import type { SecretBox } from '../secrets.js';
import type { Settings } from '../settings/schema.js';
import { configuredPools } from '../provisioning/channels.js';
import { poolEntryOf } from '../store/repositories/pools.js';
import { openStore, type Store } from '../store/store.js';
import { AgentTurns } from '../voice/agent-turns.js';
import type { CallDirectory } from '../voice/call-directory.js';
import type { CallMessages } from '../voice/call-messages.js';
import { CallRecordings } from '../voice/call-recordings.js';
import { KvCallDirectory } from '../voice/kv-call-directory.js';
import { VoiceService } from '../voice/voice-service.js';
import type { RoleParts } from './role-process.js';

/** How long a process may go on using the admin sessions' epoch it read: how late a sign-out elsewhere reaches it. */
const SESSION_EPOCH_MAX_AGE_MS = 2000;

/** What every role starts from. */
export interface RoleOptions {
  settings: Settings;
  logger: Logger;
  /** The time agent operations read; the system's clock unless a test moves its own. */
  clock?: Clock;
}

/** What a role connects to once its gateway listens (see each role's `attach`). */
export interface AttachOptions {
  publicBaseUrl: string;
  drivers: readonly DriverSpec[];
  importer: PackageImporter;
}

/** Opens (and migrates) the store the settings name: SQLite in DATA_DIR, or PostgreSQL at DATABASE_URL. */
export async function openRoleStore({ settings, logger }: RoleOptions): Promise<Store> {
  const store = await openStore({ dataDir: settings.DATA_DIR, synchronous: settings.SQLITE_SYNCHRONOUS, databaseUrl: settings.DATABASE_URL });
  logger.info({ store: store.db.dialect, dataDir: settings.DATA_DIR }, 'start-up: store open and migrated');
  return store;
}

/** The public base URL of the gateways, known once the gateway listens. */
export class PublicAddress {
  #url = '';

  get url(): string {
    return this.#url;
  }

  set(url: string): void {
    this.#url = url;
  }
}

/** The email domain agents' addresses are given in. */
export function emailDomain(settings: Settings, demoMode: boolean): string {
  return settings.EMAIL_DOMAIN || (demoMode ? DEMO_EMAIL_DOMAIN : '');
}

/** How a cluster spreads agents: over its partitions, each leased for a TTL. */
export interface Placement {
  partitions: number;
  leaseTtlMs: number;
}

/** The cluster's placement, from CLUSTER_PARTITIONS and CLUSTER_LEASE_TTL_MS. */
export function clusterPlacement(settings: Settings): Placement {
  return { partitions: settings.CLUSTER_PARTITIONS, leaseTtlMs: settings.CLUSTER_LEASE_TTL_MS };
}

/**
 * The client agent operations go through. `partitions` (cluster) spreads them over the partitions and
 * retries one whose node is gone for about three lease lifetimes.
 */
export function agentClient(bus: Bus, settings: Settings, box: SecretBox, cluster?: Placement): AgentClient {
  // A bus request must outlive the slowest operation: every send attempt timing out, plus backoff.
  const sendBudget = settings.SEND_MAX_ATTEMPTS * (settings.SEND_TIMEOUT_MS + settings.SEND_RETRY_BASE_MS * 2 ** settings.SEND_MAX_ATTEMPTS);
  return new AgentClient(bus, Math.max(15_000, sendBudget + 5_000), { box, ...(cluster ? { partitions: cluster.partitions, retryUnavailableMs: 3 * cluster.leaseTtlMs } : {}) });
}

/** Readiness checks the store answers. */
export function probeDatabase(readiness: ReadinessChecks, store: Store): void {
  readiness.register('database', async () => {
    await store.db.ping();
    return 'ok';
  });
}

/** Readiness checks NATS answers. */
export function probeNats(readiness: ReadinessChecks, bus: NatsBus): void {
  readiness.register('nats', async () => {
    await bus.flush();
    return 'ok';
  });
}

/** Adds the configured pool entries (and, in demo mode, the demo ones to empty pools). */
export async function fillPools(store: Store, settings: Settings, demoMode: boolean): Promise<void> {
  const list = (csv: string) => csv.split(',').map((s) => s.trim()).filter(Boolean);
  const configured = configuredPools(settings).map(([pool, csv]) => [pool, list(csv)] as const);
  const counts = await store.pools.counts();
  const demo = demoPools();
  for (const [pool, addresses] of configured) {
    const entries = addresses.length === 0 && demoMode && counts[pool].total === 0 ? demo[pool as keyof typeof demo] : addresses;
    // `telnyx:+1…` is a sender held at another provider than the channel's own.
    const byProvider = new Map<string, string[]>();
    for (const { provider, address } of entries.map(poolEntryOf)) byProvider.set(provider, [...(byProvider.get(provider) ?? []), address]);
    for (const [provider, addresses] of byProvider) await store.pools.add(pool, addresses, undefined, provider);
  }
}

/** What a process serving the API checks callers with: tokens, the lockout, the admin sessions' epoch. */
export class ApiAccess {
  readonly lockout: AuthLockout;
  /** The admin UI sessions' epoch, kept in the store. */
  readonly sessionEpoch: SessionEpoch;
  /** Printed once by the CLI when the first start generated the orchestrator token. */
  generatedOrchestratorToken: string | undefined;

  constructor(
    private readonly settings: Settings,
    store: Store,
    box: ConstructorParameters<typeof SessionEpoch>[1],
    readonly tokens: TokenService,
  ) {
    this.lockout = new AuthLockout({
      attempts: settings.AUTH_LOCKOUT_ATTEMPTS,
      windowMs: settings.AUTH_LOCKOUT_WINDOW_SECONDS * 1000,
      lockMs: settings.AUTH_LOCKOUT_SECONDS * 1000,
    });
    this.sessionEpoch = new SessionEpoch(store.settings, box, SESSION_EPOCH_MAX_AGE_MS);
  }

  /** Creates the orchestrator token on the first start (or takes ORCHESTRATOR_TOKEN) and the sessions' epoch. */
  async init(): Promise<void> {
    const { generatedOrchestratorToken } = await this.tokens.init(this.settings.ORCHESTRATOR_TOKEN);
    this.generatedOrchestratorToken = generatedOrchestratorToken;
    await this.sessionEpoch.init(this.tokens.orchestratorHash);
  }
}

/**
 * Loads the provider drivers by package name (the configured built-in ones, then those DRIVERS
 * names), chooses one per capability, and registers their readiness probes.
 */
export async function loadProviderDrivers(drivers: DriverSet, readiness: ReadinessChecks, { settings, logger }: RoleOptions, options: AttachOptions): Promise<void> {
  const context: DriverContext = { logger, publicBaseUrl: options.publicBaseUrl };
  const loaded = [];
  try {
    for (const spec of driverSpecs(options.drivers, settings.DRIVERS, settings)) loaded.push(await loadDriver(spec, options.importer, context));
    drivers.use(loaded, driverChoices(settings));
  } catch (err) {
    await Promise.all(loaded.map((d) => d.close?.()));
    throw err;
  }
  logger.info({ drivers: drivers.all.map((d) => `${d.manifest.name}@${d.manifest.version}`), chosen: drivers.chosen }, 'start-up: drivers loaded');
  const probe = (kind: string, channel: 'sms' | 'email' | 'voice' | 'tts') => {
    readiness.register(kind, async () => {
      const driver = drivers.for(channel);
      if (!driver?.health) return 'disabled';
      const result = await driver.health();
      if (!result.ok) throw new Error(result.message);
      return 'ok';
    });
  };
  probe('telephony', 'sms');
  probe('email', 'email');
  probe('tts', 'tts');
}

/** How long a call's directory entry lives: ringing (outbound) plus the longest call bounds when it is read. */
export function callDirectoryTtlMs(settings: Settings): number {
  return (settings.VOICE_MAX_CALL_SECONDS + 300) * 1000;
}

/**
 * Refuses a cluster start whose settings cannot work, naming the setting to fix: every process of a
 * cluster shares one PostgreSQL store and one secret key, reaches NATS, and talks to real providers
 * (the in-process demo simulator of embedded mode would be one per process).
 */
export function checkClusterSettings(settings: Settings, command: string): void {
  const missing: string[] = [];
  if (!settings.NATS_URL) missing.push('NATS_URL=nats://host:4222 (the NATS server with JetStream that joins the cluster)');
  if (!settings.DATABASE_URL) missing.push('DATABASE_URL=postgres://… (the store every process shares)');
  if (!settings.SECRET_KEY) missing.push('SECRET_KEY=<32 bytes, base64 or hex> (the same on every process, so each can open what another sealed)');
  if (!settings.PUBLIC_BASE_URL) missing.push('PUBLIC_BASE_URL=https://… (where providers reach the gateways; runtime nodes put it in status callbacks)');
  if (isDemoMode(settings)) missing.push('provider settings (TWILIO_*, RESEND_*, …); demo mode runs one simulator per process, so it is embedded-only — point the *_BASE_URL settings at `switchboard-simulator` to try a cluster locally');
  if (missing.length > 0) {
    throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `switchboard ${command} is a cluster process and needs:\n  - ${missing.join('\n  - ')}\nSee docs/cluster.md.`);
  }
}

/** What a cluster process runs on: its name, the shared store, NATS and the call directory. */
export interface ClusterFoundation {
  nodeId: string;
  store: Store;
  bus: NatsBus;
  calls: KvCallDirectory;
}

/**
 * Opens what a cluster process of `role` runs on, once its settings pass the checks of
 * `switchboard <command>`, and builds the process on it; closes what it opened when that fails.
 */
export async function startClusterProcess<R>(options: RoleOptions, role: ClusterRole, command: string, build: (foundation: ClusterFoundation) => Promise<R>): Promise<R> {
  const { settings, logger } = options;
  checkClusterSettings(settings, command);
  const nodeId = clusterNodeId(settings);
  const store = await openRoleStore(options);
  let bus: NatsBus | undefined;
  try {
    bus = await connectClusterBus(settings, nodeId, role, logger);
    logger.info({ nodeId, nats: natsUrlForLog(settings.NATS_URL) }, `start-up: cluster ${role} ${nodeId} connected to NATS`);
    const calls = await KvCallDirectory.open(bus.connection, callDirectoryTtlMs(settings), undefined, settings.NATS_REPLICAS);
    const started = await build({ nodeId, store, bus, calls });
    logger.info('start-up: runtime ready');
    return started;
  } catch (err) {
    await bus?.close();
    await store.close();
    throw err;
  }
}

/**
 * The calls a process holds: turns asked of agents through `reach`, sessions found in `calls`, and
 * what a call takes for the agent handed to `messages`.
 */
export function callService(parts: Pick<RoleParts, 'settings' | 'logger' | 'store' | 'drivers' | 'events' | 'box'>, reach: LiveReach, calls: CallDirectory, messages: CallMessages, publicBaseUrl: () => string): VoiceService {
  const { settings, logger } = parts;
  const turns = new AgentTurns(parts.box, logger, settings.VOICE_TURN_TIMEOUT_MS, reach, callbackFetch({ allowPrivateNetworks: allowsPrivateNetworks(settings) }));
  return new VoiceService(parts.store, parts.drivers, parts.events, turns, calls, messages, {
    mode: settings.VOICE_MODE,
    maxCallSeconds: settings.VOICE_MAX_CALL_SECONDS,
    ttsFailoverTimeoutMs: settings.TTS_FAILOVER_TIMEOUT_MS,
    ttsCircuit: { failures: settings.PROVIDER_CIRCUIT_FAILURES, halfOpenAfterMs: settings.PROVIDER_CIRCUIT_HALF_OPEN_MS },
    publicBaseUrl,
    recordings: callRecordings(parts),
    recordingConsent: new RecordingConsent(new RecipientPlaces(), parseAnnouncements(settings.RECORDING_ANNOUNCEMENTS)),
  }, logger);
}

/** Where call recordings are stored: RECORDINGS_DIR, else DATA_DIR/recordings. */
export function callRecordings(parts: Pick<RoleParts, 'settings' | 'logger' | 'store'>): CallRecordings {
  const { settings } = parts;
  return new CallRecordings(parts.store, settings.RECORDINGS_DIR || join(settings.DATA_DIR, 'recordings'), settings.RECORDING_RETENTION_DAYS, parts.logger);
}
