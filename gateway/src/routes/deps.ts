import type { GatewayPorts } from '@switchboard/runtime';
import type { GatewayMetrics } from '../metrics.js';

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
}

/** What the admin API's save and deploy routes drive. */
export interface AdminControl {
  /** The env file settings are saved to and redeployed from. */
  readonly envFile: string;
  /** Checks the saved settings and schedules a restart with them; throws VALIDATION_FAILED before anything stops. */
  deploy(): Promise<void>;
}
