import { pathToFileURL } from 'node:url';
import { resolve as resolveFrom } from 'import-meta-resolve';
import { builtInDriverSpecs, demoPools, type DriverSpec, type Logger, type PackageImporter, type Settings } from '@switchboard/runtime';
import type { Simulator, SimulatorCredentials } from '@switchboard/provider-simulator';

/** The in-process provider simulator of demo mode, as far as the gateway needs it. */
export interface DemoSimulator {
  readonly url: string;
  /** The credentials it accepts: demo values, not secrets (they open only this loopback simulator). */
  readonly credentials: SimulatorCredentials;
  gatewayUrl: string | undefined;
  close(): Promise<void>;
}

/** Built-in drivers to load and, in demo mode, the simulator they talk to. DRIVERS adds to these in the runtime. */
export interface Providers {
  readonly specs: DriverSpec[];
  readonly simulator: DemoSimulator | undefined;
}

/**
 * Imports a driver package by name: resolved first from the gateway's own installation (where
 * `npm install <driver>` next to Switchboard puts it), then from the working directory's
 * node_modules (drivers installed in the operator's project while Switchboard is installed elsewhere).
 */
export function packageImporter(directory: string = process.cwd()): PackageImporter {
  return async (name) => {
    try {
      return await import(name);
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND' || !String((err as Error).message).includes(`'${name}'`)) throw err;
      let url: string;
      try {
        url = resolveFrom(name, pathToFileURL(`${directory}/`).href);
      } catch {
        throw err;
      }
      return import(url);
    }
  };
}

/** The default importer: the gateway's installation, then the working directory. */
export const importPackage: PackageImporter = packageImporter();

/**
 * Demo mode starts the provider simulator in-process and points the built-in drivers at it;
 * otherwise each built-in driver whose settings are set is loaded. Either way the same driver code runs.
 */
export async function resolveProviders(settings: Settings, demoMode: boolean, logger: Logger, previous?: DemoSimulator): Promise<Providers> {
  if (!demoMode) return { specs: builtInDriverSpecs(settings), simulator: undefined };
  const { startSimulator } = (await import('@switchboard/provider-simulator')) as typeof import('@switchboard/provider-simulator');
  // Each demo LINE address is a bot the simulator hosts, so a push shows the address the agent was given.
  const options = { host: '127.0.0.1', logger: logger.child({ component: 'simulator' }), lineBotUserIds: demoPools().line };
  let simulator: Simulator | undefined;
  if (previous) {
    // A redeploy keeps the simulator where it was, with the same credentials, so what the operator noted still works.
    const port = Number(new URL(previous.url).port);
    simulator = await startSimulator({ ...options, port, credentials: previous.credentials }).catch((err: unknown) => {
      logger.warn({ err, port }, 'start-up: the simulator\u2019s previous port is taken; it moves to a new one');
      return undefined;
    });
  }
  const credentials = previous ? { credentials: previous.credentials } : {};
  const wanted = settings.SIMULATOR_PORT;
  if (!simulator && wanted !== 0) {
    // A fixed port, so the simulator URL a reader noted (SIM= in the README) works after a restart.
    simulator = await startSimulator({ ...options, port: wanted, ...credentials }).catch((err: unknown) => {
      if ((err as { code?: string }).code !== 'EADDRINUSE') throw err;
      logger.warn({ port: wanted }, `start-up: the simulator\u2019s port ${wanted} (SIMULATOR_PORT) is taken; it takes a free one`);
      return undefined;
    });
  }
  simulator ??= await startSimulator({ ...options, port: 0, ...credentials });
  return { simulator, specs: simulatorDriverSpecs(simulator) };
}

/** The built-in drivers pointed at a provider simulator, with its credentials (demo mode; tests of cluster processes). */
export function simulatorDriverSpecs(simulator: Pick<Simulator, 'credentials' | 'baseUrls'>): DriverSpec[] {
  const c = simulator.credentials;
  return [
    { packageName: '@switchboard/driver-twilio', settings: { ...c.twilio, baseUrl: simulator.baseUrls.twilio } },
    { packageName: '@switchboard/driver-resend', settings: { ...c.resend, baseUrl: simulator.baseUrls.resend } },
    {
      packageName: '@switchboard/driver-line',
      settings: { channelAccessToken: c.line.channelAccessToken, channelSecret: c.line.channelSecret, baseUrl: simulator.baseUrls.line, bots: c.lineBots.slice(1) },
    },
    { packageName: '@switchboard/driver-elevenlabs', settings: { apiKey: c.elevenlabs.apiKey, baseUrl: simulator.baseUrls.elevenlabs } },
    { packageName: '@switchboard/driver-deepgram', settings: { apiKey: c.deepgram.apiKey, baseUrl: simulator.baseUrls.deepgram } },
  ];
}
