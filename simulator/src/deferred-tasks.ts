import type { SimulatorLogger } from './types.js';

/** Work scheduled for later (status callbacks); cancelled together on reset and close. */
export class DeferredTasks {
  #timers = new Set<NodeJS.Timeout>();
  #generation = 0;
  #stopped = false;
  readonly #logger: SimulatorLogger;

  constructor(logger: SimulatorLogger) {
    this.#logger = logger;
  }

  get pending(): number {
    return this.#timers.size;
  }

  /** Changes on every cancelAll, so a task chain can tell it was cancelled mid-flight. */
  get generation(): number {
    return this.#generation;
  }

  run(delayMs: number, task: () => unknown): void {
    if (this.#stopped) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      Promise.resolve()
        .then(task)
        .catch((err: unknown) => this.#logger.warn({ err }, 'simulator: deferred task failed'));
    }, delayMs);
    timer.unref();
    this.#timers.add(timer);
  }

  cancelAll(): void {
    this.#generation++;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  /** Cancels everything and refuses new work (the simulator is closing). */
  stop(): void {
    this.#stopped = true;
    this.cancelAll();
  }
}
