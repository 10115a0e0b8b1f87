import {
  CAPABILITIES,
  ErrorCodes,
  SwitchboardError,
  manifestCapabilities,
  type Capability,
  type Driver,
} from '@switchboard/sdk';
import { driverSettingsName } from './driver-settings.js';

/** The setting that picks the driver for a capability when several offer it: `SMS_DRIVER`, `TTS_DRIVER`... */
export function choiceSetting(capability: Capability): string {
  return `${capability.toUpperCase()}_DRIVER`;
}

/** A `<CAPABILITY>_DRIVER` value names a driver by package name or by its settings name (`twilio`, `example`). */
function names(driver: Driver, value: string): boolean {
  const v = value.trim();
  return v === driver.manifest.name || v.toUpperCase() === driverSettingsName(driver.manifest.name);
}

/**
 * The loaded drivers and the one chosen for each capability (a channel, or tts/stt). A capability
 * offered by one driver goes to it; offered by several, the `<CAPABILITY>_DRIVER` setting decides,
 * and without it the start stops with DRIVER_CONFLICT: load order never picks a winner.
 */
export class DriverSet {
  #byCapability = new Map<Capability, Driver>();
  #all: Driver[] = [];

  /**
   * Takes the loaded drivers and chooses one per capability. `choices` holds the `<CAPABILITY>_DRIVER`
   * settings (empty string: not set). Throws DRIVER_CONFLICT or DRIVER_NOT_FOUND naming the setting.
   */
  use(drivers: readonly Driver[], choices: Partial<Record<Capability, string>> = {}): void {
    const chosen = new Map<Capability, Driver>();
    for (const capability of CAPABILITIES) {
      const offering = drivers.filter((d) => manifestCapabilities(d.manifest).includes(capability));
      const setting = choiceSetting(capability);
      const choice = choices[capability]?.trim();
      if (choice) {
        const driver = offering.find((d) => names(d, choice));
        if (!driver) {
          const loaded = offering.map((d) => d.manifest.name).join(', ') || 'none';
          throw new SwitchboardError(
            ErrorCodes.DRIVER_NOT_FOUND,
            `Setting ${setting}=${choice} names no loaded driver that offers ${capability}; drivers offering ${capability}: ${loaded}.`,
          );
        }
        chosen.set(capability, driver);
      } else if (offering.length > 1) {
        const list = offering.map((d) => d.manifest.name);
        throw new SwitchboardError(
          ErrorCodes.DRIVER_CONFLICT,
          `Drivers ${list.join(' and ')} both offer ${capability}; set ${setting} to the one to use (e.g. ${setting}=${list[0]}).`,
          { details: [{ capability, setting, drivers: list }] },
        );
      } else if (offering[0]) {
        chosen.set(capability, offering[0]);
      }
    }
    this.#all = [...drivers];
    this.#byCapability = chosen;
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
    return Object.fromEntries([...this.#byCapability].map(([c, d]) => [c, d.manifest.name]));
  }

  get all(): readonly Driver[] {
    return this.#all;
  }

  async close(): Promise<void> {
    await Promise.all(this.#all.map((d) => d.close?.()));
  }
}
