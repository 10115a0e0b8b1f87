import type { Store } from '../store/store.js';
import { effectiveLimits, type Limits } from './limits.js';

/** An agent's effective limits as stored: the defaults with its overrides; a read, no admission. */
export class StoredLimits {
  constructor(
    protected readonly store: Store,
    private readonly defaults: Limits,
  ) {}

  /** The agent's effective limits. */
  async limitsOf(agentId: string): Promise<Limits> {
    return effectiveLimits(this.defaults, (await this.store.limits.get(agentId)).overrides);
  }
}
