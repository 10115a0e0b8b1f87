import { BrokenCircuitError } from 'cockatiel';
import { CHANNELS, CHANNEL_SPECS, ErrorCodes, SwitchboardError, isNotAccepted, isRetryable, type Channel, type ChannelSpec, type Driver } from '@switchboard/sdk';
import { ProviderCircuits } from '../drivers/provider-circuits.js';
import type { DriverSet } from '../drivers/registry.js';
import type { RuntimeEvents } from '../events.js';
import type { Settings } from '../settings/schema.js';
import type { AgentChannel } from '../store/repositories/agents.js';

/** One place a send may go: a provider's driver and the agent's sender there. */
export interface Route {
  readonly driver: Driver;
  readonly provider: string;
  readonly from: string;
}

/** A channel's providers by destination prefix, longest prefix first. */
interface PrefixRoute {
  readonly prefix: string;
  readonly providers: readonly string[];
}

/** The destination-prefix routes of the channels that have a routes setting in their table entry (`SMS_ROUTES`), by channel. */
export function channelRoutes(settings: Settings): Partial<Record<Channel, string>> {
  const routes: Partial<Record<Channel, string>> = {};
  for (const channel of CHANNELS) {
    const spec = CHANNEL_SPECS[channel];
    if ('routesSetting' in spec) routes[channel] = settings[spec.routesSetting];
  }
  return routes;
}

export interface ProviderRouterOptions {
  /** `<CHANNEL>_ROUTES` by channel: `+44=telnyx,twilio;+1=twilio` (SMS_ROUTES). */
  readonly routes: Partial<Record<Channel, string>>;
  /** Consecutive sends a provider provably did not take before its circuit opens. */
  readonly circuitFailures: number;
  /** How long an open circuit waits before one send probes the provider. */
  readonly halfOpenAfterMs: number;
  readonly events: RuntimeEvents;
}

/**
 * Where each send goes: the providers of its channel in order (the channel's `<CHANNEL>_DRIVER` list,
 * or the destination's prefix route), each with the sender the agent holds there, and a circuit
 * breaker per provider (cockatiel's, opened by consecutive sends the provider failed to take for its own
 * reasons: see providerTrouble).
 * Each process keeps its own circuits: a cluster node learns a provider is down from its own sends.
 */
export class ProviderRouter {
  readonly #routes = new Map<Channel, PrefixRoute[]>();
  readonly #circuits: ProviderCircuits;

  constructor(
    private readonly drivers: DriverSet,
    private readonly options: ProviderRouterOptions,
  ) {
    this.#circuits = new ProviderCircuits({ failures: options.circuitFailures, halfOpenAfterMs: options.halfOpenAfterMs, events: options.events }, providerTrouble);
  }

  /**
   * Checks the routes against the loaded drivers (each name one of its channel's providers); throws
   * DRIVER_NOT_FOUND naming the setting. Run at start-up, once the drivers are loaded.
   */
  check(): void {
    this.#routes.clear();
    for (const [channel, text] of Object.entries(this.options.routes) as [Channel, string][]) {
      if (!text.trim()) continue;
      const offered = this.drivers.ordered(channel).map((d) => d.manifest.provider);
      const routes = parseRoutes(text);
      const spec: ChannelSpec = CHANNEL_SPECS[channel];
      for (const { prefix, providers } of routes) {
        const unknown = providers.find((p) => !offered.includes(p));
        if (unknown !== undefined) {
          throw new SwitchboardError(
            ErrorCodes.DRIVER_NOT_FOUND,
            `${spec.routesSetting} sends ${prefix} to ${unknown}, which is not among the ${channel} providers (${offered.join(', ') || 'none'}); add it to ${spec.driverSetting}.`,
          );
        }
      }
      this.#routes.set(channel, routes.sort((a, b) => b.prefix.length - a.prefix.length));
    }
  }

  /**
   * The places a send to `to` may go, in order, each with the agent's sender there; `unreachable` names
   * the providers the agent holds no sender at (a send cannot fail over to them).
   */
  routesFor(held: AgentChannel, to: string): { routes: Route[]; unreachable: string[] } {
    const ordered = this.drivers.ordered(held.channel);
    const own = ordered[0];
    if (!own) this.drivers.require(held.channel);
    const preferred = this.#routes.get(held.channel)?.find((r) => to.startsWith(r.prefix))?.providers;
    const drivers = preferred ? preferred.map((p) => ordered.find((d) => d.manifest.provider === p)!) : ordered;
    const routes: Route[] = [];
    const unreachable: string[] = [];
    for (const driver of drivers) {
      const provider = driver.manifest.provider;
      // An email address is the agent's at every email provider (each sends for the domain); a number is one provider's.
      const from = driver === own || held.channel === 'email' ? held.address : held.senders?.[provider];
      if (from === undefined) unreachable.push(provider);
      else routes.push({ driver, provider, from });
    }
    return { routes, unreachable };
  }

  /**
   * Runs one send attempt at a provider through its circuit: an open circuit throws at once without
   * calling it (PROVIDER_ERROR, not accepted); a failure the provider provably did not take counts
   * towards opening it; an ambiguous one (a time-out) counts neither way.
   */
  async attempt<T>(provider: string, send: () => Promise<T>): Promise<T> {
    try {
      return await this.#circuits.for(provider).execute(send);
    } catch (err) {
      if (!(err instanceof BrokenCircuitError)) throw err;
      throw new SwitchboardError(ErrorCodes.PROVIDER_ERROR, `${provider} is skipped: its circuit is open after repeated failures`, { retryable: true, notAccepted: true, cause: err });
    }
  }
}

/**
 * What opens a circuit: a failure that is the provider's, not the message's. Refused connections, 5xx,
 * 429 and 408 answers (not taken, and retryable); a 4xx about one message (an invalid number) does not,
 * and an ambiguous time-out counts neither way.
 */
function providerTrouble(err: unknown): boolean {
  return isNotAccepted(err) && isRetryable(err);
}

/** `+44=telnyx,twilio;+1=twilio` → a prefix and its providers in order, per `;`-separated part. */
export function parseRoutes(text: string): PrefixRoute[] {
  return text
    .split(';')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [prefix, list] = part.split('=');
      return { prefix: prefix!.trim(), providers: list!.split(',').map((p) => p.trim()).filter(Boolean) };
    });
}
