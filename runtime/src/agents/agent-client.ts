import { hasErrorCode } from '@switchboard/sdk';
import type { Bus } from '../bus/bus.js';
import { AGENT_SUBJECT } from '../actors/actor-system.js';
import { DEFAULT_PARTITIONS, partitionOf } from '../cluster/partitions.js';

export interface AgentClientOptions {
  /** Partitions of the cluster; callers and runtime nodes must agree. */
  partitions?: number;
  /**
   * In a cluster, how long to keep retrying a call refused with UNAVAILABLE (no node holds the
   * agent's partition yet, or a node just handed it over): a refused call was not acted on. 0 = no retry.
   */
  retryUnavailableMs?: number;
}

/** Calls agent operations over the bus; the gateway's only way to agent state. */
export class AgentClient {
  readonly #partitions: number;
  readonly #retryMs: number;

  constructor(
    private readonly bus: Bus,
    private readonly timeoutMs = 15_000,
    options: AgentClientOptions = {},
  ) {
    this.#partitions = options.partitions ?? DEFAULT_PARTITIONS;
    this.#retryMs = options.retryUnavailableMs ?? 0;
  }

  /** Runs `operation` on the agent's actor; `timeoutMs` overrides the client's time-out for this call. */
  async call<T>(operation: string, agentId: string, payload: object = {}, { timeoutMs = this.timeoutMs }: { timeoutMs?: number } = {}): Promise<T> {
    const subject = `${AGENT_SUBJECT}.${partitionOf(agentId, this.#partitions)}.${operation}`;
    const deadline = Date.now() + this.#retryMs;
    for (let delay = 25; ; delay = Math.min(delay * 2, 500)) {
      try {
        return await this.bus.request<T>(subject, { ...payload, agentId }, { timeoutMs });
      } catch (err) {
        if (!hasErrorCode(err, 'UNAVAILABLE') || Date.now() + delay > deadline) throw err;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }
}
