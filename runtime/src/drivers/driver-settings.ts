import { ErrorCodes, SwitchboardError, type DriverManifest } from '@switchboard/sdk';
import type { DriverSpec } from './loader.js';

/** Prefix of per-driver settings: `DRIVER_<NAME>_<KEY>`. */
export const DRIVER_SETTING_PREFIX = 'DRIVER_';

/** npm package names, scoped or not. */
const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

/**
 * The `<NAME>` of a driver's settings, from its package name: the scope dropped, a leading
 * `switchboard-driver-` or `driver-` dropped, upper-cased, other characters as `_`.
 * `@switchboard/driver-twilio` → `TWILIO`, `@acme/switchboard-driver-fax` → `FAX`.
 */
export function driverSettingsName(packageName: string): string {
  const base = packageName.replace(/^@[^/]+\//, '').replace(/^(switchboard-)?driver-/, '');
  return base.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
}

/** The package names of a `DRIVERS` value: comma- or space-separated; a bad name is a VALIDATION_FAILED naming it. */
export function parseDriverList(value: string): string[] {
  const names = value.split(/[\s,]+/).filter(Boolean);
  for (const name of names) {
    if (!PACKAGE_NAME.test(name)) {
      throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `Setting DRIVERS has ${name}, which is not an npm package name such as @acme/switchboard-driver-fax.`);
    }
  }
  return [...new Set(names)];
}

/** `apiKey` → `API_KEY`: how a settings-schema property is spelled after `DRIVER_<NAME>_`. */
export function envKeyOf(property: string): string {
  return property.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9]+/g, '_').toUpperCase();
}

interface PropertySchema {
  type?: string | string[];
}

/**
 * Reads `DRIVER_<NAME>_<KEY>` strings into the driver's settings shape through its schema: each KEY is
 * a schema property in SCREAMING_SNAKE case (`apiKey` ← `API_KEY`); numbers, integers and booleans are
 * converted, arrays and objects are JSON. A key the schema does not know, or a value that does not
 * parse, is DRIVER_SETTINGS_INVALID naming the setting; the schema check itself follows in validateDriver.
 */
export function settingsFromEnv(env: Readonly<Record<string, string>>, manifest: DriverManifest, name: string): Record<string, unknown> {
  const prefix = `${DRIVER_SETTING_PREFIX}${name}_`;
  const properties = ((manifest.settingsSchema as { properties?: Record<string, PropertySchema> }).properties ?? {}) as Record<string, PropertySchema>;
  const byEnvKey = new Map(Object.keys(properties).map((p) => [envKeyOf(p), p]));
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(env)) {
    const suffix = key.startsWith(prefix) ? key.slice(prefix.length) : key;
    const property = byEnvKey.get(suffix);
    if (!property) {
      const known = [...byEnvKey.keys()].map((k) => prefix + k).join(', ') || 'none';
      throw new SwitchboardError(ErrorCodes.DRIVER_SETTINGS_INVALID, `Setting ${key} is not a setting of driver ${manifest.name}; its settings are ${known}.`);
    }
    out[property] = convert(key, raw, properties[property]!, manifest.name);
  }
  return out;
}

function convert(key: string, raw: string, schema: PropertySchema, driver: string): unknown {
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0 || types.includes('string')) return raw;
  const fail = (what: string) => new SwitchboardError(ErrorCodes.DRIVER_SETTINGS_INVALID, `Setting ${key} of driver ${driver} must be ${what}; got ${JSON.stringify(raw)}.`);
  if (types.includes('integer') || types.includes('number')) {
    const n = Number(raw.trim());
    if (raw.trim() === '' || !Number.isFinite(n)) throw fail('a number');
    return n;
  }
  if (types.includes('boolean')) {
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    throw fail('true or false');
  }
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new SwitchboardError(ErrorCodes.DRIVER_SETTINGS_INVALID, `Setting ${key} of driver ${driver} must be JSON (${types.join(' or ')}).`, { cause: err });
  }
}

/**
 * The drivers to load: the built-in ones configured by their own settings (or by demo mode), then
 * the packages `DRIVERS` names, each given the `DRIVER_<NAME>_*` settings that belong to it. A
 * `DRIVER_*` setting that belongs to no driver, or two drivers with one `<NAME>`, stop the start.
 */
export function driverSpecs(configured: readonly DriverSpec[], drivers: string, settings: Readonly<Record<string, unknown>>): DriverSpec[] {
  const specs = new Map<string, { packageName: string; settings: Record<string, unknown> }>();
  for (const spec of configured) specs.set(spec.packageName, { packageName: spec.packageName, settings: { ...spec.settings } });
  for (const name of parseDriverList(drivers)) if (!specs.has(name)) specs.set(name, { packageName: name, settings: {} });
  const names = new Map<string, string>();
  for (const { packageName } of specs.values()) {
    const name = driverSettingsName(packageName);
    const other = names.get(name);
    if (other !== undefined) {
      throw new SwitchboardError(
        ErrorCodes.DRIVER_CONFLICT,
        `Drivers ${other} and ${packageName} would both read settings named ${DRIVER_SETTING_PREFIX}${name}_*; list only one of them in DRIVERS.`,
      );
    }
    names.set(name, packageName);
  }
  const env = new Map<string, Record<string, string>>();
  for (const [key, value] of Object.entries(settings)) {
    if (!key.startsWith(DRIVER_SETTING_PREFIX) || value === undefined) continue;
    // The longest <NAME> that prefixes the key owns it, so EXAMPLE_SMS_* is not read as EXAMPLE's.
    const owner = [...names.keys()].filter((n) => key.startsWith(`${DRIVER_SETTING_PREFIX}${n}_`)).sort((a, b) => b.length - a.length)[0];
    if (owner === undefined) {
      const known = [...names.keys()].map((n) => `${DRIVER_SETTING_PREFIX}${n}_*`).join(', ') || 'none: DRIVERS is empty';
      throw new SwitchboardError(
        ErrorCodes.VALIDATION_FAILED,
        `Setting ${key} belongs to no loaded driver; add the driver's package to DRIVERS (driver settings now read: ${known}).`,
      );
    }
    (env.get(owner) ?? env.set(owner, {}).get(owner)!)[key] = String(value);
  }
  return [...specs.values()].map((spec) => {
    const settingsName = driverSettingsName(spec.packageName);
    const own = env.get(settingsName);
    return { ...spec, settingsName, ...(own ? { env: own } : {}) };
  });
}
