import type { AgentRecord } from '../store/repositories/agents.js';

/**
 * One agent's serial mailbox and cached state. Every change to an agent goes through its actor,
 * so the cached record is authoritative in this process and tasks never race each other.
 */
export class AgentActor {
  #tail: Promise<unknown> = Promise.resolve();
  #depth = 0;
  /** Work its operations handed back (continuations), running outside the mailbox. */
  readonly #outside = new Set<Promise<unknown>>();
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

  /**
   * Runs `work` outside the mailbox (the next task does not wait for it), counted as this actor's work
   * until it settles: the actor is not idle meanwhile and {@link drained} waits for it.
   */
  follow<T>(work: () => Promise<T>): Promise<T> {
    const running = Promise.resolve().then(work);
    this.#outside.add(running);
    void running.then(
      () => this.#settled(running),
      () => this.#settled(running),
    );
    return running;
  }

  #settled(running: Promise<unknown>): void {
    this.#outside.delete(running);
    this.lastActive = Date.now();
  }

  /** True when nothing is queued, running, or following outside the mailbox. */
  get idle(): boolean {
    return this.#depth === 0 && this.#outside.size === 0;
  }

  /** Resolves when the mailbox has drained and the work its tasks handed back has settled. */
  async drained(): Promise<void> {
    for (;;) {
      const tail = this.#tail;
      await tail;
      if (this.#outside.size > 0) await Promise.allSettled([...this.#outside]);
      else if (tail === this.#tail) return;
    }
  }
}
