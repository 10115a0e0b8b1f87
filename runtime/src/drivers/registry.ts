import {
  CAPABILITIES,
  CHANNELS,
  CHANNEL_SPECS,
  ErrorCodes,
  SwitchboardError,
  isChannel,
  manifestCapabilities,
  type Capability,
  type Channel,
  type Driver,
} from '@switchboard/sdk';
import type { Settings } from '../settings/schema.js';
import { driverSettingsName } from './driver-settings.js';

/** The capabilities whose setting may name several drivers in order: the channels whose table entry fails over (routing and failover), and speech. */
const ORDERED: ReadonlySet<Capability> = new Set<Capability>([...CHANNELS.filter((c) => CHANNEL_SPECS[c].failover), 'tts']);

/** The setting that picks the driver for a capability when several offer it: a channel's from its table entry (`SMS_DRIVER`), `TTS_DRIVER`... */
export function choiceSetting(capability: Capability): string {
  return isChannel(capability) ? CHANNEL_SPECS[capability].driverSetting : `${capability.toUpperCase()}_DRIVER`;
}

/** Each capability's choice setting as the settings give it: the channels' (their table entries name the setting), then speech's. */
export function driverChoices(settings: Settings): Record<Capability, string> {
  const channels = Object.fromEntries(CHANNELS.map((c) => [c, settings[CHANNEL_SPECS[c].driverSetting]])) as Record<Channel, string>;
  return { ...channels, tts: settings.TTS_DRIVER, stt: settings.STT_DRIVER };
}

/** A `<CAPABILITY>_DRIVER` value names a driver by package name or by its settings name (`twilio`, `example`, `whatsapp-cloud`). */
function names(driver: Driver, value: string): boolean {
  const v = value.trim();
  return v === driver.manifest.name || v.toUpperCase().replace(/[^A-Z0-9]+/g, '_') === driverSettingsName(driver.manifest.name);
}

/**
 * The loaded drivers and the ones chosen for each capability (a channel, or tts/stt). A capability
 * offered by one driver goes to it; offered by several, the `<CAPABILITY>_DRIVER` setting decides,
 * and without it the start stops with DRIVER_CONFLICT: load order never picks a winner. The setting
 * may name several drivers in order (`SMS_DRIVER=twilio,telnyx`): the first is the channel's own, the
 * others are where its messages may go instead (see routing.ts).
 */
export class DriverSet {
  #byCapability = new Map<Capability, Driver>();
  #ordered = new Map<Capability, readonly Driver[]>();
  #all: Driver[] = [];

  /**
   * Takes the loaded drivers and chooses them per capability. `choices` holds the `<CAPABILITY>_DRIVER`
   * settings (empty string: not set). Throws DRIVER_CONFLICT or DRIVER_NOT_FOUND naming the setting.
   */
  use(drivers: readonly Driver[], choices: Partial<Record<Capability, string>> = {}): void {
    const ordered = new Map<Capability, readonly Driver[]>();
    for (const capability of CAPABILITIES) {
      const offering = drivers.filter((d) => manifestCapabilities(d.manifest).includes(capability));
      const setting = choiceSetting(capability);
      const named = (choices[capability] ?? '').split(',').map((c) => c.trim()).filter(Boolean);
      if (named.length > 1 && !ORDERED.has(capability)) {
        throw new SwitchboardError(
          ErrorCodes.DRIVER_CONFLICT,
          `Setting ${setting}=${choices[capability]} names ${named.length} drivers; ${capability} is served by one, with no failover between drivers: name one (e.g. ${setting}=${named[0]}).`,
          { details: [{ capability, setting, drivers: named }] },
        );
      }
      if (named.length > 0) {
        const list = named.map((choice) => {
          const driver = offering.find((d) => names(d, choice));
          if (!driver) {
            const loaded = offering.map((d) => d.manifest.name).join(', ') || 'none';
            throw new SwitchboardError(
              ErrorCodes.DRIVER_NOT_FOUND,
              `Setting ${setting}=${choices[capability]} names no loaded driver that offers ${capability}${named.length > 1 ? ` (${choice})` : ''}; drivers offering ${capability}: ${loaded}.`,
            );
          }
          return driver;
        });
        ordered.set(capability, [...new Set(list)]);
      } else if (offering.length > 1) {
        const list = offering.map((d) => d.manifest.name);
        throw new SwitchboardError(
          ErrorCodes.DRIVER_CONFLICT,
          `Drivers ${list.join(' and ')} both offer ${capability}; set ${setting} to the one to use (e.g. ${setting}=${list[0]}), or to several in order of preference.`,
          { details: [{ capability, setting, drivers: list }] },
        );
      } else if (offering[0]) {
        ordered.set(capability, [offering[0]]);
      }
    }
    this.#all = [...drivers];
    this.#ordered = ordered;
    this.#byCapability = new Map([...ordered].map(([capability, list]) => [capability, list[0]!]));
  }

  /** Every driver chosen for a capability, the channel's own first, then the others in order of preference. */
  ordered(capability: Capability): readonly Driver[] {
    return this.#ordered.get(capability) ?? [];
  }

  /** The loaded driver of a provider (`twilio`, `telnyx`), or undefined. */
  ofProvider(provider: string): Driver | undefined {
    return this.#all.find((d) => d.manifest.provider === provider);
  }

  /** The driver chosen for a capability, or undefined when no provider offers it. */
  for(capability: Capability): Driver | undefined {
    return this.#byCapability.get(capability);
  }

  /** The driver chosen for a capability, or UNAVAILABLE naming what to configure. */
  require(capability: Capability): Driver {
    const driver = this.#byCapability.get(capability);
    if (!driver) {
      throw new SwitchboardError(
        ErrorCodes.UNAVAILABLE,
        `No provider is configured for ${capability}; set a driver's credentials, or add a driver offering it to DRIVERS (see docs/configuration.md).`,
      );
    }
    return driver;
  }

  /** Which driver serves each capability, for the start-up log. */
  get chosen(): Partial<Record<Capability, string>> {
    return Object.fromEntries([...this.#ordered].map(([c, list]) => [c, list.map((d) => d.manifest.name).join(',')]));
  }

  get all(): readonly Driver[] {
    return this.#all;
  }

  async close(): Promise<void> {
    await Promise.all(this.#all.map((d) => d.close?.()));
  }
}
