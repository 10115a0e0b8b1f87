import type { AgentRecord, AgentRepository } from '../store/repositories/agents.js';

/** How long a record read here is used without reading it again. */
const KEEP_MS = 1_000;
/** Most records kept; the oldest go first. */
const MOST = 10_000;

interface Kept {
  readonly record: AgentRecord | undefined;
  readonly until: number;
}

/**
 * Agents' records as the edge reads them for inbound messages (messaging/inbound.ts), each kept for a
 * second: a webhook of a busy agent costs no read of the store. A change made through this process's
 * agent client is forgotten at once ({@link forget}); one made through another gateway is seen within a
 * second. What a stale record can get wrong in that second: a callback URL set through another gateway
 * finds the message dead-lettered `agent_offline` (the agent still reads it with waiting-messages), and a
 * channel blocked there may take one more message. A deprovisioned agent's message is refused by the
 * store itself (messages.ts) on PostgreSQL.
 */
export class RecentAgents {
  readonly #kept = new Map<string, Kept>();
  /** Forgets so far: a read that a forget overtook is used once, not kept (it may predate the change). */
  #forgets = 0;

  constructor(
    private readonly agents: Pick<AgentRepository, 'get'>,
    private readonly keepMs = KEEP_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async get(agentId: string): Promise<AgentRecord | undefined> {
    const kept = this.#kept.get(agentId);
    const now = this.now();
    if (kept && kept.until > now) return kept.record;
    const forgets = this.#forgets;
    const record = await this.agents.get(agentId);
    if (forgets !== this.#forgets) return record;
    this.#kept.delete(agentId);
    if (this.#kept.size >= MOST) this.#kept.delete(this.#kept.keys().next().value!);
    this.#kept.set(agentId, { record, until: now + this.keepMs });
    return record;
  }

  /** The agent changed (or may have): its next read goes to the store. */
  forget(agentId: string): void {
    this.#forgets++;
    this.#kept.delete(agentId);
  }
}
