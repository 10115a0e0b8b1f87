import { startGatewayProcess, type GatewayProcess } from './gateway-process.js';
import { runLoad, type LoadSettings } from './load.js';
import { runPaced } from './paced.js';
import type { BenchContext } from './types.js';

/** A scenario's context and the clean-up the harness runs after the scenario, whatever happened. */
export interface ScenarioScope {
  readonly ctx: BenchContext;
  close(): Promise<void>;
}

/** Builds the context for one scenario: a lazily started real server of its own, and the load runner. */
export function openScenarioScope(name: string, settings: LoadSettings, { short = false } = {}): ScenarioScope {
  const cleanups: (() => Promise<unknown> | void)[] = [];
  const gateways = new Map<string, Promise<GatewayProcess>>();
  const log = (message: string) => process.stderr.write(`  [${name}] ${message}\n`);
  const ctx: BenchContext = {
    durationSeconds: settings.durationSeconds,
    warmupSeconds: settings.warmupSeconds,
    connections: settings.connections,
    short,
    gateway(options = {}) {
      // A scenario that names no adapter runs on the one HTTP_ADAPTER names (`HTTP_ADAPTER=node npm run bench`).
      const adapter = options.adapter ?? defaultAdapter();
      const key = adapter ?? 'auto';
      let gateway = gateways.get(key);
      if (!gateway) {
        log(`starting the real server (embedded, demo mode, fresh data dir, HTTP_ADAPTER=${key})`);
        gateway = startGatewayProcess({ adapter, ...(options.env ? { env: options.env } : {}) });
        gateways.set(key, gateway);
        const started = gateway;
        cleanups.push(async () => (await started.catch(() => undefined))?.stop());
      }
      return gateway;
    },
    load: (spec) => runLoad(spec, settings),
    paced: (spec) => runPaced(spec, settings),
    defer: (cleanup) => void cleanups.push(cleanup),
    log,
  };
  return {
    ctx,
    async close() {
      // Last registered, first undone; one failed clean-up must not skip the others.
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup();
        } catch (err) {
          log(`clean-up failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    },
  };
}

function defaultAdapter(): 'uws' | 'node' | undefined {
  const named = process.env.HTTP_ADAPTER;
  if (named === undefined || named === '' || named === 'auto') return undefined;
  if (named === 'uws' || named === 'node') return named;
  throw new Error(`HTTP_ADAPTER=${named}: use uws, node or auto`);
}
