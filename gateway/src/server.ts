import { Runtime, type Logger, type Settings } from '@switchboard/runtime';
import { GatewayApp } from './http/app.js';
import { listen, type Listener } from './http/uws-adapter.js';
import { GatewayMetrics } from './metrics.js';
import { adminRoutes } from './routes/admin.js';
import type { RouteDeps } from './routes/deps.js';
import { docsRoutes } from './routes/docs.js';
import { healthRoutes } from './routes/health.js';
import { billingRoutes } from './routes/billing.js';
import { messagingRoutes } from './routes/messaging.js';
import { webhookRoutes } from './routes/webhooks.js';
import { importPackage, resolveProviders, type DemoSimulator } from './providers.js';
import { provisioningRoutes } from './routes/provisioning.js';
import { VERSION } from './version.js';

/** A running embedded Switchboard: gateway and runtime in one process. */
export interface Gateway {
  readonly url: string;
  readonly port: number;
  readonly publicBaseUrl: string;
  readonly runtime: Runtime;
  readonly app: GatewayApp;
  readonly metrics: GatewayMetrics;
  /** The in-process provider simulator, in demo mode. */
  readonly simulator: DemoSimulator | undefined;
  /** Stops accepting, drains in-flight requests and actors, closes the store. */
  stop(): Promise<void>;
}

export interface StartGatewayOptions {
  settings: Settings;
  logger: Logger;
}

/** Starts the runtime and the uWebSockets.js gateway in front of it. */
export async function startGateway({ settings, logger }: StartGatewayOptions): Promise<Gateway> {
  const runtime = await Runtime.start({ settings, logger });
  const metrics = new GatewayMetrics();
  metrics.observe(runtime);
  const app = new GatewayApp({
    runtime,
    metrics,
    logger,
    bodyLimits: { api: settings.BODY_LIMIT_BYTES, webhook: settings.WEBHOOK_BODY_LIMIT_BYTES },
  });
  let listener: Listener | undefined;
  let simulator: DemoSimulator | undefined;
  let publicBaseUrl: string;
  let url: string;
  try {
    listener = await listen(app, { host: settings.HOST, port: settings.PORT, logger });
    const host = settings.HOST.includes(':') ? `[${settings.HOST}]` : settings.HOST === '0.0.0.0' ? '127.0.0.1' : settings.HOST;
    url = `http://${host}:${listener.port}`;
    publicBaseUrl = (settings.PUBLIC_BASE_URL || url).replace(/\/+$/, '');
    const providers = await resolveProviders(settings, runtime.demoMode, logger);
    simulator = providers.simulator;
    if (simulator) simulator.gatewayUrl = publicBaseUrl;
    await runtime.attach({ publicBaseUrl, drivers: providers.specs, importer: importPackage });
  } catch (err) {
    await listener?.close(0);
    await simulator?.close();
    await runtime.stop();
    throw err;
  }
  const deps: RouteDeps = { runtime, metrics, version: VERSION, startedAt: Date.now(), publicBaseUrl };
  app.add(
    ...healthRoutes(deps),
    ...docsRoutes(deps, () => app.routes),
    ...provisioningRoutes(deps),
    ...messagingRoutes(deps),
    ...webhookRoutes(deps),
    ...billingRoutes(deps),
    ...adminRoutes(deps),
  );

  let stopping: Promise<void> | undefined;
  return {
    url,
    port: listener.port,
    publicBaseUrl,
    runtime,
    app,
    metrics,
    simulator,
    stop() {
      stopping ??= (async () => {
        await listener.close(settings.SHUTDOWN_GRACE_SECONDS * 1000);
        await runtime.stop();
        await simulator?.close();
      })();
      return stopping;
    },
  };
}
