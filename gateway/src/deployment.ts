import { EventEmitter } from 'node:events';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { checkDriver, driverSpecs, isDemoMode, loadSettings, type Logger, type Settings } from '@switchboard/runtime';
import { writeFileAtomic } from './admin/settings-file.js';
import { SwitchingListener } from './admin/switching-listener.js';
import { importPackage, resolveProviders } from './providers.js';
import type { AdminControl, DeployRecord } from './routes/deps.js';
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
 * A deploy that fails, refused before the swap or at the new settings' start-up, puts the env file
 * back as it was when the serving settings were read, so the next start does not fail the same way;
 * its outcome is {@link lastDeploy}, which the admin status shows.
 */
export class Deployment extends EventEmitter<{ deployed: [Gateway]; failed: [unknown] }> {
  #current: Gateway;
  #swapping: Promise<void> | undefined;
  #stopped = false;
  #last: DeployRecord | null = null;
  /** The env file's text when the serving settings were read from it; undefined: there was none. */
  #servingEnv: string | undefined;
  readonly #admin: AdminControl;

  private constructor(
    private readonly socket: SwitchingListener,
    gateway: Gateway,
    private readonly options: StartDeploymentOptions,
    private readonly logger: Logger,
    servingEnv: string | undefined,
    admin: AdminControl,
  ) {
    super();
    this.#current = gateway;
    this.#servingEnv = servingEnv;
    this.#admin = admin;
  }

  static async start(options: StartDeploymentOptions): Promise<Deployment> {
    const servingEnv = readEnvText(options.envFile);
    const settings = readSettings(options);
    const logger = typeof options.logger === 'function' ? options.logger(settings) : options.logger;
    let deployment: Deployment | undefined;
    // One control for every generation: the record of the last deploy outlives the gateway that ran it.
    const admin: AdminControl = {
      envFile: options.envFile,
      deploy: () => deployment!.deploy(),
      get lastDeploy() {
        return deployment?.lastDeploy ?? null;
      },
      get deploying() {
        return deployment?.swapping !== undefined;
      },
      givenElsewhere: (key) => options.env?.[key] !== undefined || options.overrides?.[key] !== undefined,
    };
    const socket = new SwitchingListener();
    const gateway = await startGateway({ settings, logger, admin, listen: socket.listen, cluster: options.cluster });
    deployment = new Deployment(socket, gateway, options, logger, servingEnv, admin);
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

  /** The last deploy and its outcome; null before the first. */
  get lastDeploy(): DeployRecord | null {
    return this.#last;
  }

  /**
   * Validates the saved settings (schema, then each driver to load: its package, manifest, sdk range
   * and settings) and schedules the swap; resolves with the record whose outcome the status will show.
   * Throws VALIDATION_FAILED (or the driver's code) before anything stops, restoring the env file,
   * and CONFLICT while a swap is under way.
   */
  async deploy(): Promise<DeployRecord> {
    if (this.#stopped) throw new SwitchboardError(ErrorCodes.CONFLICT, 'The server is shutting down.');
    if (this.#swapping) throw new SwitchboardError(ErrorCodes.CONFLICT, 'A deploy is already under way; wait for it to finish.');
    let release!: () => void;
    this.#swapping = new Promise<void>((resolve) => (release = resolve));
    const startedAt = new Date().toISOString();
    this.#last = { startedAt, finishedAt: null, outcome: 'deploying', error: null, envFileRestored: false };
    let settings: Settings;
    let envText: string | undefined;
    try {
      envText = readEnvText(this.options.envFile);
      settings = readSettings({ ...this.options, overrides: { ...this.options.overrides, PORT: this.#current.port } });
      await checkDrivers(settings, this.logger);
    } catch (err) {
      const restored = this.#failed(startedAt, err);
      this.#swapping = undefined;
      release();
      if (!restored || !(err instanceof SwitchboardError)) throw err;
      throw new SwitchboardError(err.code, `${err.message} The env file was put back as it was when the serving settings were loaded; save the changes again with this fixed.`, {
        cause: err,
        details: (err as { details?: unknown[] }).details,
      });
    }
    // The 202 goes out first; the swap starts on the next turn.
    setImmediate(() => {
      this.#swap(settings)
        .then(() => {
          this.#servingEnv = envText;
          this.#last = { startedAt, finishedAt: new Date().toISOString(), outcome: 'deployed', error: null, envFileRestored: false };
        })
        .catch((err: unknown) => {
          this.#failed(startedAt, err);
          this.emit('failed', err);
        })
        .finally(() => {
          this.#swapping = undefined;
          release();
        });
    });
    return this.#last;
  }

  /** Records a failed deploy and puts the env file back; returns whether the file was changed back. */
  #failed(startedAt: string, err: unknown): boolean {
    let restored = false;
    try {
      restored = this.#restoreEnvFile();
    } catch (restoreErr) {
      this.logger.error({ err: restoreErr, envFile: this.options.envFile }, 'deploy: the env file could not be put back; fix it before the next start');
    }
    const code = err instanceof SwitchboardError ? err.code : ErrorCodes.INTERNAL;
    const message = err instanceof Error ? err.message : String(err);
    this.logger.error({ err, envFileRestored: restored }, `deploy failed: ${message}${restored ? ' (the env file was put back as it was)' : ''}`);
    this.#last = { startedAt, finishedAt: new Date().toISOString(), outcome: 'failed', error: { code, message }, envFileRestored: restored };
    return restored;
  }

  /** Writes back the env file the serving settings came from (removes it if there was none); true if it differed. */
  #restoreEnvFile(): boolean {
    const path = this.options.envFile;
    const now = readEnvText(path);
    if (now === this.#servingEnv) return false;
    if (this.#servingEnv === undefined) rmSync(path, { force: true });
    else writeFileAtomic(path, this.#servingEnv);
    return true;
  }

  async #swap(settings: Settings): Promise<void> {
    const old = this.#current;
    const { logger } = this;
    const started = Date.now();
    logger.info('deploy: restarting; the port answers 503 Retry-After meanwhile');
    // The socket stays open: between the two servers it answers 503 starting with Retry-After.
    await old.stop();
    const start = (s: Settings) =>
      startGateway({ settings: s, logger, admin: this.#admin, listen: this.socket.listen, cluster: this.options.cluster, previousSimulator: old.simulator });
    try {
      this.#current = await start(settings);
    } catch (err) {
      logger.error({ err }, 'deploy: the new settings failed at start-up; restarting with the previous ones');
      try {
        this.#current = await start({ ...old.runtime.settings, PORT: old.port });
      } catch (again) {
        logger.fatal({ err: again }, 'deploy: the previous settings failed to start too; the port answers 503 until the process is restarted');
        throw new SwitchboardError(ErrorCodes.INTERNAL, `${(err as Error).message} Restarting with the previous settings failed too: ${(again as Error).message}`, { cause: err });
      }
      throw err;
    }
    const simulator = this.#current.simulator ? { simulator: this.#current.simulator.url } : {};
    logger.info({ ms: Date.now() - started, ...simulator }, 'deploy: serving with the saved settings');
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

/** The env file's text, or undefined when there is none. */
function readEnvText(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

export function readSettings(options: Omit<StartDeploymentOptions, 'logger'>): Settings {
  return loadSettings({ envFile: options.envFile, requireEnvFile: options.requireEnvFile, env: options.env ?? {}, overrides: options.overrides });
}

/** Each driver the settings would load, checked as the start-up would, short of creating it. */
async function checkDrivers(settings: Settings, logger: Logger): Promise<void> {
  // Demo mode's built-in drivers are pointed at the simulator, which supplies their settings.
  const configured = isDemoMode(settings) ? [] : (await resolveProviders(settings, false, logger)).specs;
  for (const spec of driverSpecs(configured, settings.DRIVERS, settings)) {
    try {
      await checkDriver(spec, importPackage);
    } catch (err) {
      // DRIVER_NOT_FOUND, DRIVER_INCOMPATIBLE or DRIVER_SETTINGS_INVALID: to the admin, saved settings that cannot start.
      const code = err instanceof SwitchboardError ? err.code : ErrorCodes.INTERNAL;
      throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `The saved settings for ${spec.packageName} are not valid: ${(err as Error).message}`, {
        cause: err,
        details: [{ driver: spec.packageName, code, message: (err as Error).message }],
      });
    }
  }
}
