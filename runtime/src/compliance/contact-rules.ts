/** A day of the week as Luxon numbers it: 1 is Monday, 7 is Sunday. */
export type Weekday = 1 | 2 | 3 | 4 | 5 | 6 | 7;

/** A stretch of local time, `HH:MM` to `HH:MM`, the end excluded. */
export type LocalInterval = readonly [from: string, to: string];

/** What the law of the recipient's place asks of calls (and marketing texts) to it. */
export interface ContactRules {
  /** When contact is allowed, per weekday in the recipient's local time; a day without entries allows none. */
  readonly hours: Readonly<Record<Weekday, readonly LocalInterval[]>>;
  /** Whether an automated (AI) call needs the callee's prior consent on record. */
  readonly automatedCallConsent: boolean;
  /** Whether a recorded call must first tell every party it is recorded (all-party consent). */
  readonly recordingAnnouncement: boolean;
}

const every = (intervals: readonly LocalInterval[]): ContactRules['hours'] => ({ 1: intervals, 2: intervals, 3: intervals, 4: intervals, 5: intervals, 6: intervals, 7: intervals });

/** The default where no country rule says otherwise: 8:00–21:00 every day, as the US TCPA reads. */
export const DEFAULT_RULES: ContactRules = { hours: every([['08:00', '21:00']]), automatedCallConsent: false, recordingAnnouncement: false };

/**
 * Country rules by ISO 3166 region, as data an operator can replace. Sources: US TCPA 47 CFR
 * 64.1200(c)(1) (8:00–21:00) and (a)(2) (prior express consent for artificial or prerecorded voice
 * calls, which the FCC's 2024 ruling applies to AI voices); Canada's CRTC Unsolicited
 * Telecommunications Rules (9:00–21:30 weekdays, 10:00–18:00 weekends); France's decree 2022-1313
 * (weekdays 10:00–13:00 and 14:00–20:00, none at weekends); Australia's Telemarketing Industry
 * Standard 2017 (weekdays 9:00–20:00, Saturday 9:00–17:00, no Sunday); Germany's § 201 StGB
 * (recording needs every party's consent).
 */
export const COUNTRY_RULES: Readonly<Record<string, ContactRules>> = {
  US: { ...DEFAULT_RULES, automatedCallConsent: true },
  CA: { ...DEFAULT_RULES, hours: { ...every([['09:00', '21:30']]), 6: [['10:00', '18:00']], 7: [['10:00', '18:00']] } },
  FR: {
    ...DEFAULT_RULES,
    hours: { ...every([['10:00', '13:00'], ['14:00', '20:00']]), 6: [], 7: [] },
    recordingAnnouncement: true,
  },
  AU: { ...DEFAULT_RULES, hours: { ...every([['09:00', '20:00']]), 6: [['09:00', '17:00']], 7: [] }, recordingAnnouncement: true },
  DE: { ...DEFAULT_RULES, recordingAnnouncement: true },
};

/**
 * US states whose law asks every party's consent to record a call (California Penal Code § 632 and
 * its peers), by the two-letter code libphonenumber's geocoder ends a place with ("San Francisco, CA").
 */
export const ALL_PARTY_RECORDING_STATES: ReadonlySet<string> = new Set(['CA', 'CT', 'DE', 'FL', 'IL', 'MD', 'MA', 'MI', 'MT', 'NV', 'NH', 'OR', 'PA', 'WA']);

/** The rules for a recipient's region, falling back to the default. */
export function rulesFor(region: string | undefined, overrides: Readonly<Record<string, ContactRules>> = {}): ContactRules {
  if (region === undefined) return DEFAULT_RULES;
  return overrides[region] ?? COUNTRY_RULES[region] ?? DEFAULT_RULES;
}
