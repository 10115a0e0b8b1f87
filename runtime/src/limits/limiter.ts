import { hasErrorCode } from '@switchboard/sdk';
import type { AgentActor } from '../actors/agent-actor.js';
import type { RuntimeEvents } from '../events.js';
import type { Store } from '../store/store.js';
import type { Limits } from './limits.js';
import { StoredLimits } from './stored-limits.js';
import { UsageLedger, type Admission } from './usage-ledger.js';

/**
 * Admits billable actions against an agent's limits, through a ledger per actor: kept beside the actor
 * (not in it, so that actors know nothing of limits) and gone with it when it is passivated.
 */
export class Limiter extends StoredLimits {
  readonly #ledgers = new WeakMap<AgentActor, UsageLedger>();

  constructor(
    store: Store,
    defaults: Limits,
    private readonly events: RuntimeEvents,
  ) {
    super(store, defaults);
  }

  /** The actor's ledger, loaded from the store on first use (so limits hold across restarts). */
  async ledger(actor: AgentActor): Promise<UsageLedger> {
    let ledger = this.#ledgers.get(actor);
    if (!ledger) {
      const now = Date.now();
      const totals = await this.store.usage.totalsSince(actor.agentId, UsageLedger.windowStarts(now));
      ledger = new UsageLedger(await this.limitsOf(actor.agentId), totals as ConstructorParameters<typeof UsageLedger>[1], now);
      this.#ledgers.set(actor, ledger);
    }
    return ledger;
  }

  /** Checks and counts one action of `cost`; must run inside the agent's mailbox. */
  async admit(actor: AgentActor, cost: number): Promise<Admission> {
    const ledger = await this.ledger(actor);
    try {
      return ledger.admit(cost);
    } catch (err) {
      if (hasErrorCode(err, 'RATE_LIMITED')) {
        const limit = ((err as { details?: { limit: string }[] }).details?.[0]?.limit) ?? 'unknown';
        this.events.emit('limitRejected', { agentId: actor.agentId, limit });
      }
      throw err;
    }
  }

  /** Re-reads the agent's limits into its ledger after they change. */
  async refresh(actor: AgentActor): Promise<void> {
    const ledger = this.#ledgers.get(actor);
    if (ledger) ledger.limits = await this.limitsOf(actor.agentId);
  }

  /** Gives back what an admission counted, when its action did not happen. */
  release(actor: AgentActor, admission: Admission): void {
    this.#ledgers.get(actor)?.release(admission);
  }
}
