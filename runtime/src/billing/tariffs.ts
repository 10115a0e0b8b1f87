import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';

/**
 * Prices in USD per unit of a billable action, optionally per destination country, parsed from the
 * TARIFFS setting: `<action>[:<COUNTRY>]=<usd>` entries separated by commas, e.g.
 * `sms=0.0083,sms:GB=0.0463,email=0.0004`. Actions: sms, whatsapp, email, line (per message or
 * segment), call_minute, voice_message, transfer, tts_1k_characters.
 */
export class Tariffs {
  readonly #prices = new Map<string, number>();
  /** Actions that have a country price: only their destinations need parsing. */
  readonly #byCountry = new Set<string>();
  /** Destination → country, since parsing a number costs ~70 µs and agents text the same numbers again. */
  readonly #countries = new Map<string, string | undefined>();

  constructor(spec: string) {
    for (const entry of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
      const match = /^([a-z0-9_]+)(?::([A-Z]{2}))?=(\d+(?:\.\d+)?)$/.exec(entry);
      if (!match) {
        throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `Setting TARIFFS has a bad entry "${entry}"; write <action>[:<COUNTRY>]=<usd>, e.g. sms:GB=0.0463.`);
      }
      this.#prices.set(match[2] ? `${match[1]}:${match[2]}` : match[1]!, Number(match[3]));
      if (match[2]) this.#byCountry.add(match[1]!);
    }
  }

  /** The unit price for an action to a destination (country price first), or undefined when none is set. */
  price(action: string, destination?: string): number | undefined {
    const country = this.#byCountry.has(action) && destination?.startsWith('+') ? this.#countryOf(destination) : undefined;
    return (country === undefined ? undefined : this.#prices.get(`${action}:${country}`)) ?? this.#prices.get(action);
  }

  #countryOf(phone: string): string | undefined {
    if (this.#countries.has(phone)) return this.#countries.get(phone);
    const country = parsePhoneNumberFromString(phone)?.country;
    if (this.#countries.size >= COUNTRY_CACHE_SIZE) this.#countries.delete(this.#countries.keys().next().value!);
    this.#countries.set(phone, country);
    return country;
  }

  /** Cost of `units` of an action, rounded to 4 places; `fallback` (the driver's estimate) when no tariff is set. */
  cost(action: string, units: number, destination?: string, fallback?: number | null): number {
    const unit = this.price(action, destination);
    const total = unit === undefined ? (fallback ?? 0) : unit * units;
    return round4(total);
  }
}

const COUNTRY_CACHE_SIZE = 10_000;

/** USD rounded to the contract's 4 places. */
export function round4(usd: number): number {
  return Math.round(usd * 10_000) / 10_000;
}
