import { LocalLiveReach } from '../agents/live-reach.js';
import type { Bus } from '../bus/bus.js';
import { MemoryBus } from '../bus/memory-bus.js';
import { warnIfDataDirOpen } from '../data-dir.js';
import { DataDirLock } from '../data-dir-lock.js';
import type { GatewayPorts } from '../ports.js';
import type { Store } from '../store/store.js';
import { MemoryCallDirectory } from '../voice/call-directory.js';
import { CallVoicePort } from '../voice/voice-port.js';
import { InProcessWorkQueue } from '../work/in-process-work-queue.js';
import { AgentHost } from './agent-host.js';
import { emailDomain, fillPools, openRoleStore, type AttachOptions, type RoleOptions } from './parts.js';
import { ServingProcess } from './role-process.js';
import type { ServedRuntime } from './served-runtime.js';

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
export class EmbeddedRuntime extends ServingProcess implements ServedRuntime {
  readonly role = 'embedded' as const;
  readonly nodeId = undefined;
  readonly host: AgentHost;
  readonly ports: GatewayPorts;

  constructor(
    options: EmbeddedOptions,
    store: Store,
    bus: Bus,
    private lock: DataDirLock | undefined,
  ) {
    super(options, store, bus);
    const { settings, logger } = options;
    const reach = new LocalLiveReach();
    this.host = new AgentHost({
      ...this.parts(),
      reach,
      calls: new MemoryCallDirectory(),
      emailDomain: emailDomain(settings, this.demoMode),
      work: new InProcessWorkQueue({ logger }),
      // No other process can be at a send of this store: every unsent one at start is an orphan.
      sweepAgeMs: 0,
    });
    this.ports = this.gatewayPorts({
      limits: this.host.limiter,
      reach,
      delivery: this.host.delivery,
      voice: new CallVoicePort(this.host.voice, store, this.host.voiceMessages, this.audio),
    });
  }

  /** Loads the drivers, starts the audio workers of stream calls, and re-drives what the last run left. */
  override async attach(options: AttachOptions): Promise<void> {
    await super.attach(options);
    // Every unsent send is an orphan of the last run.
    await this.host.start(this.logger);
  }

  async stop(): Promise<void> {
    await this.host.actors.stop();
    await this.host.stop();
    await this.close();
    await this.lock?.release();
    this.lock = undefined;
  }
}
