import { hasErrorCode } from '@switchboard/sdk';
import type { Bus } from '../bus/bus.js';
import { AGENT_SUBJECT } from '../actors/actor-system.js';
import { DEFAULT_PARTITIONS, partitionOf } from '../cluster/partitions.js';
import { checkResponse, type OperationInput, type OperationName, type OperationResponse } from './catalogue.js';

export interface AgentClientOptions {
  /** Partitions of the cluster; callers and runtime nodes must agree. */
  partitions?: number;
  /**
   * In a cluster, how long to keep retrying a call refused with UNAVAILABLE (no node holds the
   * agent's partition yet, or a node just handed it over): a refused call was not acted on. 0 = no retry.
   */
  retryUnavailableMs?: number;
}

/** Calls the catalogue's agent operations over the bus and checks their answers; the gateway's only way to agent state. */
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

  /** Runs catalogue operation `operation` on the agent's actor and checks its answer; `timeoutMs` overrides the client's time-out. */
  async call<K extends OperationName>(operation: K, agentId: string, ...[payload, options]: CallArgs<K>): Promise<OperationResponse<K>> {
    return checkResponse(operation, await this.request(operation, agentId, payload ?? {}, options));
  }

  /** Runs any operation the actors answer, unchecked (the actor system's own tests use operations of their own). */
  async request(operation: string, agentId: string, payload: object = {}, { timeoutMs = this.timeoutMs }: CallOptions = {}): Promise<unknown> {
    const subject = `${AGENT_SUBJECT}.${partitionOf(agentId, this.#partitions)}.${operation}`;
    const deadline = Date.now() + this.#retryMs;
    for (let delay = 25; ; delay = Math.min(delay * 2, 250)) {
      try {
        return await this.bus.request(subject, { ...payload, agentId }, { timeoutMs });
      } catch (err) {
        if (!hasErrorCode(err, 'UNAVAILABLE') || Date.now() + delay > deadline) throw err;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }
}

export interface CallOptions {
  /** Overrides the client's time-out for this call. */
  timeoutMs?: number;
}

/** An operation's input and options; the input may be left out when the operation needs nothing but the agent. */
type CallArgs<K extends OperationName> = {} extends OperationInput<K> ? [payload?: OperationInput<K>, options?: CallOptions] : [payload: OperationInput<K>, options?: CallOptions];
