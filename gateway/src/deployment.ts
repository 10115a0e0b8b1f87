import { EventEmitter } from 'node:events';
import { validateDriver, type DriverModule, ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { isDemoMode, loadSettings, type Logger, type Settings } from '@switchboard/runtime';
import { SwitchingListener } from './admin/switching-listener.js';
import { importPackage, resolveProviders } from './providers.js';
import { startGateway, type Gateway } from './server.js';

export interface StartDeploymentOptions {
  /** The env file settings are read from, saved to and redeployed from. */
  envFile: string;
  /** Whether a missing env file is an error (it was named on the command line). */
  requireEnvFile?: boolean;
  env?: Record<string, string | undefined>;
  /** Highest precedence, kept across deploys (command-line flags). */
  overrides?: Partial<Record<string, string | number>>;
  logger: Logger | ((settings: Settings) => Logger);
  /** `gateway`: a cluster gateway (`switchboard gateway`); absent: embedded. */
  cluster?: 'gateway';
}

/**
 * A gateway that can restart itself in-process with the settings saved in its env file: the admin
 * API's deploy. No outside supervisor is needed, so it works under a bare `switchboard start`.
 */
export class Deployment extends EventEmitter<{ deployed: [Gateway]; failed: [unknown] }> {
  #current: Gateway;
  #swapping: Promise<void> | undefined;
  #stopped = false;

  private constructor(
    private readonly socket: SwitchingListener,
    gateway: Gateway,
    private readonly options: StartDeploymentOptions,
    private readonly logger: Logger,
  ) {
    super();
    this.#current = gateway;
  }

  static async start(options: StartDeploymentOptions): Promise<Deployment> {
    const settings = readSettings(options);
    const logger = typeof options.logger === 'function' ? options.logger(settings) : options.logger;
    let deployment: Deployment | undefined;
    const admin = { envFile: options.envFile, deploy: () => deployment!.deploy() };
    const socket = new SwitchingListener();
    const gateway = await startGateway({ settings, logger, admin, listen: socket.listen, cluster: options.cluster });
    deployment = new Deployment(socket, gateway, options, logger);
    return deployment;
  }

  /** The gateway serving now; a new object after each deploy. */
  get current(): Gateway {
    return this.#current;
  }

  /** The swap under way, if any. */
  get swapping(): Promise<void> | undefined {
    return this.#swapping;
  }

  /**
   * Validates the saved settings (schema, then each driver's own settings) and schedules the swap.
   * Throws VALIDATION_FAILED before anything stops, and CONFLICT while a swap is under way.
   */
  async deploy(): Promise<void> {
    if (this.#stopped) throw new SwitchboardError(ErrorCodes.CONFLICT, 'The server is shutting down.');
    if (this.#swapping) throw new SwitchboardError(ErrorCodes.CONFLICT, 'A deploy is already under way; wait for it to finish.');
    let release!: () => void;
    this.#swapping = new Promise<void>((resolve) => (release = resolve));
    let settings: Settings;
    try {
      settings = readSettings({ ...this.options, overrides: { ...this.options.overrides, PORT: this.#current.port } });
      await checkDrivers(settings, this.logger);
    } catch (err) {
      this.#swapping = undefined;
      release();
      throw err;
    }
    // The 202 goes out first; the swap starts on the next turn.
    setImmediate(() => {
      this.#swap(settings)
        .catch((err: unknown) => {
          this.logger.error({ err }, 'deploy failed');
          this.emit('failed', err);
        })
        .finally(() => {
          this.#swapping = undefined;
          release();
        });
    });
  }

  async #swap(settings: Settings): Promise<void> {
    const old = this.#current;
    const { logger } = this;
    const started = Date.now();
    logger.info('deploy: restarting; the port answers 503 Retry-After meanwhile');
    // The socket stays open: between the two servers it answers 503 starting with Retry-After.
    await old.stop();
    const admin = { envFile: this.options.envFile, deploy: () => this.deploy() };
    try {
      this.#current = await startGateway({ settings, logger, admin, listen: this.socket.listen, cluster: this.options.cluster });
    } catch (err) {
      logger.error({ err }, 'deploy: the new settings failed at start-up; restarting with the previous ones');
      this.#current = await startGateway({ settings: { ...old.runtime.settings, PORT: old.port }, logger, admin, listen: this.socket.listen, cluster: this.options.cluster });
      throw err;
    }
    logger.info({ ms: Date.now() - started }, 'deploy: serving with the saved settings');
    this.emit('deployed', this.#current);
  }

  /** Waits for a swap under way, then stops the current gateway. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#swapping;
    await this.#current.stop();
    await this.socket.close(0);
  }
}

export function readSettings(options: Omit<StartDeploymentOptions, 'logger'>): Settings {
  return loadSettings({ envFile: options.envFile, requireEnvFile: options.requireEnvFile, env: options.env ?? {}, overrides: options.overrides });
}

/** Each driver the settings would load, checked against its own settings schema without creating it. */
async function checkDrivers(settings: Settings, logger: Logger): Promise<void> {
  if (isDemoMode(settings)) return;
  const { specs } = await resolveProviders(settings, false, logger);
  for (const spec of specs) {
    const imported = (await importPackage(spec.packageName)) as { default?: DriverModule };
    try {
      validateDriver(imported.default!, spec.settings);
    } catch (err) {
      throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `The saved settings for ${spec.packageName} are not valid: ${(err as Error).message}`, { cause: err });
    }
  }
}
