import type { Logger } from '../logger.js';

/**
 * Whether a node's store answers, asked every `everyMs` (each ask given up after `everyMs`): a node
 * whose store has failed `failures` asks in a row is unfit to hold partitions (it could serve nothing
 * and would keep its agents dark), and fit again at the first answer.
 */
export class StoreWatch {
  #failed = 0;
  #last = '';
  #timer: NodeJS.Timeout | undefined;
  #asking = false;

  constructor(
    private readonly ask: () => Promise<unknown>,
    private readonly everyMs: number,
    private readonly logger?: Logger,
    private readonly failures = 2,
  ) {}

  /** False once the store failed `failures` asks in a row, until it answers. */
  get fit(): boolean {
    return this.#failed < this.failures;
  }

  /** Why the node is unfit; empty while fit. */
  get problem(): string {
    return this.fit ? '' : `the store failed ${this.#failed} checks in a row (last: ${this.#last})`;
  }

  start(): void {
    this.#timer = setInterval(() => void this.check(), this.everyMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** One ask (skipped while the last is still out). */
  async check(): Promise<void> {
    if (this.#asking) return;
    this.#asking = true;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([this.ask(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${this.everyMs} ms`)), this.everyMs)))]);
      if (!this.fit) this.logger?.warn('the store answers again; taking partitions again');
      this.#failed = 0;
    } catch (err) {
      this.#last = err instanceof Error ? err.message : String(err);
      if (++this.#failed === this.failures) this.logger?.warn({ err: this.#last }, 'the store does not answer; giving partitions up until it does');
    } finally {
      clearTimeout(timer);
      this.#asking = false;
    }
  }
}
