import { Ajv2020 } from 'ajv/dist/2020.js';
import semver from 'semver';
import { SPEECH_CAPABILITIES, TELEPHONY_FEATURES } from './capabilities.js';
import { CHANNELS } from './channels.js';
import type { Driver, DriverManifest, DriverModule } from './driver.js';
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
  checkManifestShape(manifest);
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

/** Refuses a manifest whose channels or speech services are not known ones, or that offers nothing. */
function checkManifestShape(manifest: DriverManifest): void {
  const incompatible = (what: string) =>
    new SwitchboardError(ErrorCodes.DRIVER_INCOMPATIBLE, `Driver ${String(manifest.name)} ${what}; see the manifest fields in the @switchboard/sdk README.`);
  if (!Array.isArray(manifest.channels)) throw incompatible('declares no channels array');
  const unknown = manifest.channels.find((c) => !(CHANNELS as readonly string[]).includes(c));
  if (unknown !== undefined) throw incompatible(`declares unknown channel ${String(unknown)} (known: ${CHANNELS.join(', ')})`);
  if (manifest.speech !== undefined) {
    if (!Array.isArray(manifest.speech)) throw incompatible('declares speech that is not an array');
    const bad = manifest.speech.find((c) => !(SPEECH_CAPABILITIES as readonly string[]).includes(c));
    if (bad !== undefined) throw incompatible(`declares unknown speech service ${String(bad)} (known: ${SPEECH_CAPABILITIES.join(', ')})`);
  }
  if (manifest.telephony !== undefined) {
    if (!Array.isArray(manifest.telephony)) throw incompatible('declares telephony features that are not an array');
    const bad = manifest.telephony.find((c) => !(TELEPHONY_FEATURES as readonly string[]).includes(c));
    if (bad !== undefined) throw incompatible(`declares unknown telephony feature ${String(bad)} (known: ${TELEPHONY_FEATURES.join(', ')})`);
  }
  if (manifest.channels.length === 0 && (manifest.speech ?? []).length === 0) throw incompatible('declares neither a channel nor a speech service');
}

/**
 * Checks that a created driver offers what its manifest declares and nothing it does not: `telephony`
 * exactly when it lists the `voice` channel, `tts` and `stt` exactly when its `speech` lists them,
 * telephony's `recording` exactly when its `telephony` lists it.
 * Throws DRIVER_INCOMPATIBLE naming the mismatch.
 */
export function checkDriverCapabilities(driver: Driver): void {
  const { manifest } = driver;
  const speech = manifest.speech ?? [];
  const pairs: [string, boolean, boolean][] = [
    ['telephony (the voice channel)', driver.telephony !== undefined, manifest.channels.includes('voice')],
    ['tts (speech: ["tts"])', driver.tts !== undefined, speech.includes('tts')],
    ['stt (speech: ["stt"])', driver.stt !== undefined, speech.includes('stt')],
    ['recording (telephony: ["recording"])', driver.telephony?.recording !== undefined, (manifest.telephony ?? []).includes('recording')],
  ];
  for (const [what, offered, declared] of pairs) {
    if (offered === declared) continue;
    throw new SwitchboardError(
      ErrorCodes.DRIVER_INCOMPATIBLE,
      offered
        ? `Driver ${manifest.name} offers ${what} but its manifest does not declare it.`
        : `Driver ${manifest.name} declares ${what} in its manifest but does not offer it.`,
    );
  }
}
