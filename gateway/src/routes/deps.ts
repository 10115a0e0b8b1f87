import type { GatewayPorts } from '@switchboard/runtime';
import type { GatewayMetrics } from '../metrics.js';
import type { DemoSimulator } from '../providers.js';

/** What route modules are built from. */
export interface RouteDeps {
  /** The runtime, as far as a gateway reaches it. */
  readonly ports: GatewayPorts;
  readonly metrics: GatewayMetrics;
  readonly version: string;
  readonly startedAt: number;
  /** Public base URL, without a trailing slash. */
  readonly publicBaseUrl: string;
  /** Saving settings and redeploying, when the process was started from an env file. */
  readonly admin?: AdminControl;
  /** Where credential tests send their probe (the simulator in demo mode); the vendor's own API when absent. */
  readonly providerBaseUrls?: Readonly<Partial<Record<'twilio' | 'resend' | 'elevenlabs', string>>>;
  /** The in-process provider simulator, in demo mode. */
  readonly simulator?: DemoSimulator;
}

/** What the admin API's save and deploy routes drive. */
export interface AdminControl {
  /** The env file settings are saved to and redeployed from. */
  readonly envFile: string;
  /**
   * Checks the saved settings and schedules a restart with them; throws VALIDATION_FAILED before
   * anything stops. Resolves with the record {@link lastDeploy} will show the outcome in.
   */
  deploy(): Promise<DeployRecord>;
  /** The last deploy and how it ended; null before the first one. */
  readonly lastDeploy: DeployRecord | null;
  /** True from a deploy's start until its outcome is known: saving then would race it. */
  readonly deploying: boolean;
  /** True when the process environment or a command-line flag gives a setting: that wins over the env file. */
  givenElsewhere(key: string): boolean;
}

/** One deploy as the admin status reports it. */
export interface DeployRecord {
  readonly startedAt: string;
  /** Null while the deploy is under way. */
  readonly finishedAt: string | null;
  /** `deploying` while under way; `deployed`: the saved settings serve; `failed`: the previous ones serve again. */
  readonly outcome: 'deploying' | 'deployed' | 'failed';
  /** Why it failed, as the contract's error code and message. */
  readonly error: { code: string; message: string } | null;
  /** True when the failure put the env file back as it was when the serving settings were loaded. */
  readonly envFileRestored: boolean;
}
