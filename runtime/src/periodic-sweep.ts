/**
 * A sweep run every `everyMs`, one at a time (a slow one is not overlapped by the next), that
 * {@link stop} waits for: a process stops its sweeps before it closes the store they read.
 */
export class PeriodicSweep {
  #timer: NodeJS.Timeout | undefined;
  /** The sweep under way. */
  #sweeping: Promise<unknown> | undefined;

  constructor(
    private readonly sweep: () => Promise<unknown>,
    private readonly everyMs: number,
  ) {}

  /** Starts sweeping; with `now`, the first sweep runs at once rather than after one period. */
  start(now = false): void {
    if (now) this.#run();
    this.#timer = setInterval(() => this.#run(), this.everyMs);
    this.#timer.unref();
  }

  /** Sweeps no more, once the sweep under way is done. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
  }

  #run(): void {
    this.#sweeping ??= this.sweep().finally(() => (this.#sweeping = undefined));
  }
}
