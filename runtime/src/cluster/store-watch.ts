import type { Logger } from '../logger.js';

/**
 * Whether a node's store answers, asked every `everyMs` by its owner's timer: an ask still unanswered
 * at the next one has failed (no answer within `everyMs`), so the check needs no timer of its own. A
 * node whose store has failed `failures` asks in a row is unfit to hold partitions (it could serve
 * nothing and would keep its agents dark), and fit again at the first answer.
 */
export class StoreWatch {
  #failed = 0;
  #last = '';
  /** The ask out now, if any. */
  #out: object | undefined;

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

  /** One ask, every `everyMs`: the last one, if still out, has failed. */
  check(): void {
    if (this.#out) this.#fail(`no answer within ${this.everyMs} ms`);
    const ask = {};
    this.#out = ask;
    this.ask().then(
      () => {
        if (this.#out === ask) this.#out = undefined;
        if (!this.fit) this.logger?.warn('the store answers again; taking partitions again');
        this.#failed = 0;
      },
      (err: unknown) => {
        // One already counted as unanswered does not fail twice.
        if (this.#out !== ask) return;
        this.#out = undefined;
        this.#fail(err instanceof Error ? err.message : String(err));
      },
    );
  }

  #fail(why: string): void {
    this.#last = why;
    if (++this.#failed === this.failures) this.logger?.warn({ err: why }, 'the store does not answer; giving partitions up until it does');
  }
}
