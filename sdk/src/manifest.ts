import { Ajv2020 } from 'ajv/dist/2020.js';
import semver from 'semver';
import type { DriverModule } from './driver.js';
import { ErrorCodes, SwitchboardError } from './errors.js';
import { SDK_VERSION } from './version.js';

const ajv = new Ajv2020({ allErrors: true, useDefaults: true, strict: false });

/**
 * Checks that a driver module fits this sdk and that its settings match its schema.
 * Returns a frozen copy of the settings with schema defaults applied.
 */
export function validateDriver<S>(module: DriverModule<S>, settings: unknown): S {
  const { manifest } = module ?? {};
  if (!manifest || typeof module.create !== 'function') {
    throw new SwitchboardError(ErrorCodes.DRIVER_INCOMPATIBLE, 'The module does not export a driver made with defineDriver().');
  }
  if (!semver.validRange(manifest.sdk) || !semver.satisfies(SDK_VERSION, manifest.sdk, { includePrerelease: true })) {
    throw new SwitchboardError(
      ErrorCodes.DRIVER_INCOMPATIBLE,
      `Driver ${manifest.name} supports @switchboard/sdk ${manifest.sdk}, but this is ${SDK_VERSION}; install a driver version built for it.`,
    );
  }
  const copy = structuredClone(settings ?? {});
  const validate = ajv.compile(manifest.settingsSchema);
  if (!validate(copy)) {
    const details = (validate.errors ?? []).map((e) => ({ path: e.instancePath || '/', message: e.message ?? 'is invalid' }));
    const first = details[0];
    throw new SwitchboardError(
      ErrorCodes.DRIVER_SETTINGS_INVALID,
      `Settings for driver ${manifest.name} are invalid: ${first ? `${first.path} ${first.message}` : 'schema check failed'}.`,
      { details },
    );
  }
  return Object.freeze(copy) as S;
}
