import type { Channel } from '@switchboard/sdk';
import type { MetricsPort } from '@switchboard/runtime';

/** How many of a provider's latest attempts its recent error rate is the share of. */
export const RECENT_ATTEMPTS = 100;

type Outcome = 'accepted' | 'refused' | 'ambiguous';
type CircuitState = 'closed' | 'open' | 'half-open';

/** What the board knows of one provider of one channel. */
export interface ProviderHealth {
  readonly provider: string;
  /** As last reported by any process sending there; closed until one reports otherwise. */
  readonly circuit: CircuitState;
  readonly lastSuccessAt: string | null;
  /** The last attempt refused or left ambiguous (a time-out). */
  readonly lastFailureAt: string | null;
  /** The share of refused and ambiguous attempts among the last {@link RECENT_ATTEMPTS}; null before the first. */
  readonly recentErrorRate: number | null;
  readonly attempts: Readonly<Record<Outcome, number>>;
}

interface Tally {
  attempts: Record<Outcome, number>;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
  /** The latest outcomes, true for a failure, oldest first. */
  recent: boolean[];
}

/**
 * Each provider's send attempts and circuit as this gateway has heard of them since it started: from
 * its own runtime's events embedded, from every node's forwarded events in a cluster (the same events
 * its metrics count).
 */
export class ProviderBoard {
  readonly since = new Date();
  readonly #tallies = new Map<string, Tally>();
  readonly #circuits = new Map<string, CircuitState>();

  constructor(private readonly now: () => number = Date.now) {}

  observe(events: MetricsPort['events']): void {
    events.on('providerAttempt', ({ channel, provider, outcome }) => this.attempt(channel, provider, outcome));
    events.on('providerCircuit', ({ provider, state }) => this.#circuits.set(provider, state));
  }

  /** Counts one send attempt at a provider. */
  attempt(channel: Channel, provider: string, outcome: Outcome): void {
    const key = `${channel} ${provider}`;
    let tally = this.#tallies.get(key);
    if (!tally) {
      tally = { attempts: { accepted: 0, refused: 0, ambiguous: 0 }, lastSuccessAt: null, lastFailureAt: null, recent: [] };
      this.#tallies.set(key, tally);
    }
    tally.attempts[outcome]++;
    const failed = outcome !== 'accepted';
    if (failed) tally.lastFailureAt = this.now();
    else tally.lastSuccessAt = this.now();
    tally.recent.push(failed);
    if (tally.recent.length > RECENT_ATTEMPTS) tally.recent.shift();
  }

  /** What the board holds for a channel's provider (zeros when it has heard of no attempt). */
  health(channel: Channel, provider: string): ProviderHealth {
    const tally = this.#tallies.get(`${channel} ${provider}`);
    const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
    const recent = tally?.recent ?? [];
    return {
      provider,
      circuit: this.#circuits.get(provider) ?? 'closed',
      lastSuccessAt: iso(tally?.lastSuccessAt),
      lastFailureAt: iso(tally?.lastFailureAt),
      recentErrorRate: recent.length === 0 ? null : recent.filter(Boolean).length / recent.length,
      attempts: { ...(tally?.attempts ?? { accepted: 0, refused: 0, ambiguous: 0 }) },
    };
  }
}
