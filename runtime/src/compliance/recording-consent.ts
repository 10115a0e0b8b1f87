import { ALL_PARTY_RECORDING_STATES, rulesFor } from './contact-rules.js';
import type { RecipientPlaces } from './recipient-place.js';

/** The announcement a recorded call opens with where the law asks it, by language (RECORDING_ANNOUNCEMENTS replaces or adds). */
export const DEFAULT_RECORDING_ANNOUNCEMENTS: Readonly<Record<string, string>> = {
  en: 'This call is recorded.',
  fr: 'Cet appel est enregistré.',
  de: 'Dieses Gespräch wird aufgezeichnet.',
  es: 'Esta llamada está siendo grabada.',
};

/**
 * Parses RECORDING_ANNOUNCEMENTS: `<language>=<text>` entries separated by `|`, each replacing or
 * adding to the defaults (`en=Calls are recorded for quality.|it=La chiamata è registrata.`).
 */
export function parseAnnouncements(setting: string): Record<string, string> {
  const wording: Record<string, string> = { ...DEFAULT_RECORDING_ANNOUNCEMENTS };
  for (const entry of setting.split('|')) {
    const at = entry.indexOf('=');
    if (at > 0) wording[entry.slice(0, at).trim().toLowerCase()] = entry.slice(at + 1).trim();
  }
  return wording;
}

/**
 * Recording consent: a call to or from a place whose law asks every party's consent to be recorded
 * (a country rule's `recordingAnnouncement`, or a US all-party state) opens with an announcement
 * before anything else is said, in the call's language; elsewhere one party's consent (the agent's)
 * is enough and nothing is said.
 */
export class RecordingConsent {
  readonly #wording: Readonly<Record<string, string>>;

  constructor(
    private readonly places: RecipientPlaces,
    wording: Readonly<Record<string, string>> = DEFAULT_RECORDING_ANNOUNCEMENTS,
  ) {
    this.#wording = wording;
  }

  /** What a recorded call with `party` (E.164) must say first, in `language` (BCP 47); undefined when nothing need be said. */
  async announcementFor(party: string, language: string): Promise<string | undefined> {
    const place = await this.places.of(party);
    const allParty = rulesFor(place.region).recordingAnnouncement || (place.region === 'US' && place.subdivision !== undefined && ALL_PARTY_RECORDING_STATES.has(place.subdivision));
    return allParty ? this.wordingFor(language) : undefined;
  }

  /** The announcement in `language`, else in its base language, else in English. */
  wordingFor(language: string): string {
    const base = language.toLowerCase().split('-')[0]!;
    return this.#wording[language.toLowerCase()] ?? this.#wording[base] ?? this.#wording.en ?? DEFAULT_RECORDING_ANNOUNCEMENTS.en!;
  }
}
