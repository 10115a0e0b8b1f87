import { CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhen, type CircuitBreakerPolicy } from 'cockatiel';
import type { RuntimeEvents } from '../events.js';

export interface ProviderCircuitOptions {
  /** Consecutive failures that open a provider's circuit (PROVIDER_CIRCUIT_FAILURES). */
  readonly failures: number;
  /** How long an open circuit waits before one attempt probes the provider (PROVIDER_CIRCUIT_HALF_OPEN_MS). */
  readonly halfOpenAfterMs: number;
  readonly events: RuntimeEvents;
}

const STATE_NAMES = { [CircuitState.Closed]: 'closed', [CircuitState.Open]: 'open', [CircuitState.HalfOpen]: 'half-open', [CircuitState.Isolated]: 'open' } as const;

/**
 * A circuit breaker per provider (cockatiel's): `trouble` says which failures are the provider's and
 * count towards opening it; each change of state is a `providerCircuit` event (the metric and the
 * providers board). Message sends and call speech each keep their own, built the same way here.
 * An open circuit's `execute` throws cockatiel's BrokenCircuitError without calling the provider.
 */
export class ProviderCircuits {
  readonly #circuits = new Map<string, CircuitBreakerPolicy>();

  constructor(
    private readonly options: ProviderCircuitOptions,
    private readonly trouble: (err: unknown) => boolean,
  ) {}

  for(provider: string): CircuitBreakerPolicy {
    let circuit = this.#circuits.get(provider);
    if (!circuit) {
      circuit = circuitBreaker(handleWhen(this.trouble), { halfOpenAfter: this.options.halfOpenAfterMs, breaker: new ConsecutiveBreaker(this.options.failures) });
      circuit.onStateChange((state) => this.options.events.emit('providerCircuit', { provider, state: STATE_NAMES[state] }));
      this.#circuits.set(provider, circuit);
    }
    return circuit;
  }
}
