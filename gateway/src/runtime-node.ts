import { Runtime, type DriverSpec, type Logger, type Settings } from '@switchboard/runtime';
import { importPackage, resolveProviders } from './providers.js';

/**
 * Starts a cluster runtime node (`switchboard runtime`): the actors of the partitions it leases, the
 * drivers (those the settings name, or `drivers`), and the queued deliveries; no HTTP. Status callbacks and media URLs name PUBLIC_BASE_URL,
 * where the gateways are reached.
 */
export async function startRuntimeNode({ settings, logger, drivers }: { settings: Settings; logger: Logger; drivers?: DriverSpec[] }): Promise<Runtime> {
  const runtime = await Runtime.start({ settings, logger, cluster: 'node' });
  try {
    const specs = drivers ?? (await resolveProviders(settings, false, logger)).specs;
    await runtime.attach({ publicBaseUrl: settings.PUBLIC_BASE_URL.replace(/\/+$/, ''), drivers: specs, importer: importPackage });
  } catch (err) {
    await runtime.stop();
    throw err;
  }
  logger.info({ nodeId: runtime.nodeId }, 'start-up: runtime node ready');
  return runtime;
}
