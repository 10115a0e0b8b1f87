import type { AgentRecord } from '../store/repositories/agents.js';

/**
 * One agent's serial mailbox and cached state. Every change to an agent goes through its actor,
 * so the cached record is authoritative in this process and tasks never race each other.
 */
export class AgentActor {
  #tail: Promise<unknown> = Promise.resolve();
  #depth = 0;
  /** The stored record; undefined until loaded, null when the agent does not exist. */
  state: AgentRecord | null | undefined = undefined;
  lastActive = Date.now();

  constructor(readonly agentId: string) {}

  /** Queues a task behind the ones already in the mailbox. */
  enqueue<T>(task: () => Promise<T>): Promise<T> {
    this.#depth++;
    this.lastActive = Date.now();
    const run = async () => {
      try {
        return await task();
      } finally {
        this.#depth--;
        this.lastActive = Date.now();
      }
    };
    const next = this.#tail.then(run, run);
    this.#tail = next.catch(() => undefined);
    return next;
  }

  /** True when nothing is queued or running. */
  get idle(): boolean {
    return this.#depth === 0;
  }

  /** Resolves when the mailbox has drained. */
  drained(): Promise<void> {
    return this.#tail.then(() => undefined);
  }
}
