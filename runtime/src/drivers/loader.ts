import semver from 'semver';
import {
  ErrorCodes,
  SDK_VERSION,
  SwitchboardError,
  checkDriverCapabilities,
  validateDriver,
  type Driver,
  type DriverContext,
  type DriverModule,
} from '@switchboard/sdk';
import { settingsFromEnv } from './driver-settings.js';

/** A driver to load: its package name and its settings. */
export interface DriverSpec {
  readonly packageName: string;
  /** Settings already in the driver's own shape (built-in settings such as TWILIO_*, or demo mode's). */
  readonly settings: Record<string, unknown>;
  /** `DRIVER_<NAME>_<KEY>` values by their full setting name; read through the manifest's settings schema, they win over `settings`. */
  readonly env?: Readonly<Record<string, string>>;
  /** The `<NAME>` of those settings, e.g. `EXAMPLE` for `@switchboard/driver-example`. */
  readonly settingsName?: string;
}

/** Imports a package by name; the caller's resolution decides where drivers are installed. */
export type PackageImporter = (packageName: string) => Promise<unknown>;

/**
 * Loads a driver by package name: imports it, checks that the manifest names the package it was
 * imported from and that its sdk range includes this runtime's sdk version, validates its settings
 * against the manifest's schema, creates it, and checks that it offers what it declares. Refuses with
 * DRIVER_NOT_FOUND, DRIVER_INCOMPATIBLE or DRIVER_SETTINGS_INVALID, never with a bare import error.
 */
export async function loadDriver(spec: DriverSpec, importer: PackageImporter, context: DriverContext): Promise<Driver> {
  const { module, settings } = await checkDriver(spec, importer);
  const { manifest } = module;
  const driver = await module.create(settings, context);
  if (driver?.manifest?.name !== manifest.name) {
    throw new SwitchboardError(ErrorCodes.DRIVER_INCOMPATIBLE, `Driver ${manifest.name} created an object without its manifest; create() must return { manifest, ... }.`);
  }
  checkDriverCapabilities(driver);
  return driver;
}

/**
 * Everything {@link loadDriver} checks before it creates the driver: imports the package, checks its
 * manifest and sdk range, validates its settings. Used to refuse a deploy before anything stops.
 */
export async function checkDriver(spec: DriverSpec, importer: PackageImporter): Promise<{ module: DriverModule; settings: Record<string, unknown> }> {
  let imported: unknown;
  try {
    imported = await importer(spec.packageName);
  } catch (err) {
    throw new SwitchboardError(ErrorCodes.DRIVER_NOT_FOUND, `Driver package ${spec.packageName} cannot be loaded; install it with npm install ${spec.packageName}.`, {
      cause: err,
    });
  }
  const exports = (imported ?? {}) as { default?: unknown; driver?: unknown };
  const module = (exports.default ?? exports.driver) as DriverModule | undefined;
  if (!module || typeof module !== 'object' || typeof module.create !== 'function' || typeof module.manifest !== 'object' || module.manifest === null) {
    throw new SwitchboardError(
      ErrorCodes.DRIVER_INCOMPATIBLE,
      `Package ${spec.packageName} does not export a driver; its default export must be the result of defineDriver() from @switchboard/sdk.`,
    );
  }
  const { manifest } = module;
  if (manifest.name !== spec.packageName) {
    throw new SwitchboardError(
      ErrorCodes.DRIVER_INCOMPATIBLE,
      `Package ${spec.packageName} exports a driver named ${String(manifest.name)}; a driver's manifest.name must be its package name.`,
    );
  }
  checkSdkRange(manifest.name, manifest.sdk);
  const fromEnv = spec.env ? settingsFromEnv(spec.env, manifest, spec.settingsName ?? '') : {};
  return { module, settings: validateDriver(module, { ...spec.settings, ...fromEnv }) as Record<string, unknown> };
}

/** Refuses a driver whose declared `@switchboard/sdk` range does not include the sdk this runtime speaks. */
export function checkSdkRange(name: string, range: unknown, sdkVersion: string = SDK_VERSION): void {
  if (typeof range !== 'string' || !semver.validRange(range)) {
    throw new SwitchboardError(ErrorCodes.DRIVER_INCOMPATIBLE, `Driver ${name} declares sdk ${String(range)}, which is not a semver range such as ^${sdkVersion}.`);
  }
  if (!semver.satisfies(sdkVersion, range, { includePrerelease: true })) {
    throw new SwitchboardError(
      ErrorCodes.DRIVER_INCOMPATIBLE,
      `Driver ${name} supports @switchboard/sdk ${range}, but this Switchboard speaks ${sdkVersion}; install a version of the driver built for it.`,
    );
  }
}
