import type { Runtime } from '@switchboard/runtime';
import type { GatewayMetrics } from '../metrics.js';

/** What route modules are built from. */
export interface RouteDeps {
  readonly runtime: Runtime;
  readonly metrics: GatewayMetrics;
  readonly version: string;
  readonly startedAt: number;
  /** Public base URL, without a trailing slash. */
  readonly publicBaseUrl: string;
}
