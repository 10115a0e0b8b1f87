import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startNode, type Clock, type DriverSpec, type Logger, type RuntimeNodeRuntime, type Settings } from '@switchboard/runtime';
import { NodeMetrics } from './node-metrics.js';
import { importPackage, resolveProviders } from './providers.js';
import { VERSION } from './version.js';

/** A running cluster runtime node. */
export interface RuntimeNode {
  readonly runtime: RuntimeNodeRuntime;
  readonly nodeId: string;
  /** Where its probes answer, when HEALTH_PORT is set. */
  readonly healthUrl: string | undefined;
  /** Hands its partitions over, drains, and closes the probes. */
  stop(): Promise<void>;
}

/**
 * Starts a cluster runtime node (`switchboard runtime`): the actors of the partitions it leases, the
 * drivers (those the settings name, or `drivers`), and the queued deliveries; no API. Status callbacks
 * and media URLs name PUBLIC_BASE_URL, where the gateways are reached. With HEALTH_PORT set it answers
 * liveness and readiness probes there, as a gateway does on its own port, and Prometheus metrics.
 */
export async function startRuntimeNode({ settings, logger, drivers, clock }: { settings: Settings; logger: Logger; drivers?: DriverSpec[]; clock?: Clock }): Promise<RuntimeNode> {
  const runtime = await startNode({ settings, logger, ...(clock ? { clock } : {}) });
  let probes: Server | undefined;
  try {
    const specs = drivers ?? (await resolveProviders(settings, false, logger)).specs;
    await runtime.attach({ publicBaseUrl: settings.PUBLIC_BASE_URL.replace(/\/+$/, ''), drivers: specs, importer: importPackage });
    if (settings.HEALTH_PORT > 0) probes = await serveProbes(runtime, settings.HOST, settings.HEALTH_PORT);
  } catch (err) {
    await runtime.stop();
    throw err;
  }
  const address = probes?.address() as AddressInfo | undefined;
  const healthUrl = address && `http://${settings.HOST.includes(':') ? `[${settings.HOST}]` : settings.HOST}:${address.port}`;
  logger.info({ nodeId: runtime.nodeId, healthUrl }, 'start-up: runtime node ready');
  return {
    runtime,
    nodeId: runtime.nodeId,
    healthUrl,
    async stop() {
      await runtime.stop();
      if (probes) await new Promise<void>((resolve) => probes!.close(() => resolve()));
    },
  };
}

/**
 * `GET /health` (the process is up, and which partitions it serves), `GET /health/ready` (the database,
 * NATS and the providers answer) and `GET /metrics` (the node's Prometheus metrics, node-metrics.ts).
 */
async function serveProbes(runtime: RuntimeNodeRuntime, host: string, port: number): Promise<Server> {
  const started = Date.now();
  const metrics = new NodeMetrics(runtime);
  const server = createServer((request, response) => {
    const answer = (status: number, body: object) => {
      response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      response.end(JSON.stringify(body));
    };
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/health' && path !== '/health/ready' && path !== '/metrics') {
      return answer(404, { error: `No probe ${path}; runtime nodes answer GET /health, GET /health/ready and GET /metrics.`, code: 'NOT_FOUND' });
    }
    if (request.method !== 'GET') return answer(405, { error: `${request.method} is not allowed here; use GET.`, code: 'METHOD_NOT_ALLOWED' });
    if (path === '/metrics') {
      metrics.registry.metrics().then(
        (text) => {
          response.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
          response.end(text);
        },
        (err: unknown) => answer(500, { error: `Metrics could not be collected: ${String(err)}`, code: 'INTERNAL' }),
      );
      return;
    }
    if (path === '/health') {
      const partitions = runtime.partitions();
      return answer(200, { status: 'ok', role: 'runtime', nodeId: runtime.nodeId, uptime: (Date.now() - started) / 1000, version: VERSION, partitions });
    }
    runtime.readiness.run().then(
      ({ ready, checks }) => answer(ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks }),
      (err: unknown) => answer(503, { status: 'not_ready', error: String(err) }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
