import {
  ErrorCodes,
  SwitchboardError,
  validateDriver,
  type Channel,
  type Driver,
  type DriverContext,
  type DriverModule,
} from '@switchboard/sdk';

/** A driver to load: its package name and its settings. */
export interface DriverSpec {
  readonly packageName: string;
  readonly settings: Record<string, unknown>;
}

/** Imports a package by name; the caller's resolution decides where drivers are installed. */
export type PackageImporter = (packageName: string) => Promise<unknown>;

/**
 * Loads a driver by package name: imports it, checks its sdk range and settings with the sdk's own
 * `validateDriver`, and creates it. Refuses with DRIVER_NOT_FOUND, DRIVER_INCOMPATIBLE or
 * DRIVER_SETTINGS_INVALID, never with a bare import error.
 */
export async function loadDriver(spec: DriverSpec, importer: PackageImporter, context: DriverContext): Promise<Driver> {
  let imported: unknown;
  try {
    imported = await importer(spec.packageName);
  } catch (err) {
    throw new SwitchboardError(ErrorCodes.DRIVER_NOT_FOUND, `Driver package ${spec.packageName} cannot be loaded; install it with npm install ${spec.packageName}.`, {
      cause: err,
    });
  }
  const module = ((imported as { default?: unknown }).default ?? (imported as { driver?: unknown }).driver) as DriverModule;
  const settings = validateDriver(module, spec.settings);
  return module.create(settings, context);
}

/** The drivers serving each channel. */
export class DriverSet {
  readonly #byChannel = new Map<Channel, Driver>();
  readonly #all: Driver[] = [];

  add(driver: Driver): void {
    this.#all.push(driver);
    for (const channel of driver.manifest.channels) if (!this.#byChannel.has(channel)) this.#byChannel.set(channel, driver);
  }

  /** The driver for a channel, or undefined when no provider is configured for it. */
  for(channel: Channel): Driver | undefined {
    return this.#byChannel.get(channel);
  }

  /** The driver for a channel, or UNAVAILABLE naming what to configure. */
  require(channel: Channel): Driver {
    const driver = this.#byChannel.get(channel);
    if (!driver) {
      throw new SwitchboardError(ErrorCodes.UNAVAILABLE, `No provider is configured for ${channel}; set its credentials (see docs/configuration.md).`);
    }
    return driver;
  }

  /** The first driver offering a capability (telephony, tts, stt), if any. */
  withCapability<K extends 'telephony' | 'tts' | 'stt'>(capability: K): NonNullable<Driver[K]> | undefined {
    for (const driver of this.#all) if (driver[capability]) return driver[capability] as NonNullable<Driver[K]>;
    return undefined;
  }

  get all(): readonly Driver[] {
    return this.#all;
  }

  async close(): Promise<void> {
    await Promise.all(this.#all.map((d) => d.close?.()));
  }
}
