import type { AgentClient } from '../agents/agent-client.js';
import type { TokenService } from '../auth/token-service.js';
import type { Bus } from '../bus/bus.js';
import type { ReadinessChecks } from '../health.js';
import type { GatewayPorts } from '../ports.js';
import type { Settings } from '../settings/schema.js';
import type { AttachOptions } from './parts.js';
import type { StoredReads } from './stored-reads.js';

/**
 * What tests and benchmarks look at beside the ports: reads of the store, the bus, the agent client,
 * tokens and readiness of a running role. Not for the gateway's code, which sees only {@link GatewayPorts}.
 */
export interface TestPorts {
  readonly stored: StoredReads;
  readonly bus: Bus;
  readonly agents: Pick<AgentClient, 'call'>;
  readonly tokens: Pick<TokenService, 'teamToken'>;
  readonly readiness: Pick<ReadinessChecks, 'register' | 'run'>;
}

/** A runtime a gateway serves the API of: embedded (everything in one process) or a cluster gateway. */
export interface ServedRuntime {
  readonly role: 'embedded' | 'gateway';
  readonly settings: Settings;
  readonly demoMode: boolean;
  /** This process's name in a cluster; undefined embedded. */
  readonly nodeId: string | undefined;
  /** Printed once by the CLI when the first start generated the orchestrator token. */
  readonly generatedOrchestratorToken: string | undefined;
  /** Public base URL of the gateway; known once it listens. */
  readonly publicBaseUrl: string;
  /** What the gateway reaches this runtime through. */
  readonly ports: GatewayPorts;
  readonly inspect: TestPorts;
  /**
   * Connects the runtime to the outside once the gateway listens: loads the provider drivers, then
   * starts what the role runs.
   */
  attach(options: AttachOptions): Promise<void>;
  /** Drains what the role runs, then closes drivers, the bus and the store. */
  stop(): Promise<void>;
}
