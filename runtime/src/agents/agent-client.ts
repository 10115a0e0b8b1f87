import type { Bus } from '../bus/bus.js';
import { AGENT_SUBJECT } from '../actors/actor-system.js';

/** Calls agent operations over the bus; the gateway's only way to agent state. */
export class AgentClient {
  constructor(
    private readonly bus: Bus,
    private readonly timeoutMs = 15_000,
  ) {}

  call<T>(operation: string, agentId: string, payload: object = {}): Promise<T> {
    return this.bus.request<T>(`${AGENT_SUBJECT}.${operation}`, { ...payload, agentId }, { timeoutMs: this.timeoutMs });
  }
}
