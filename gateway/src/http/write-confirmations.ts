interface Waiting {
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

const ignore = () => undefined;

/**
 * Writes not yet known to have left user space, oldest first, with the promise each writer waits on.
 * Every promise is marked handled, so a writer that does not wait (a keep-alive) never causes an
 * unhandled rejection.
 */
export class WriteConfirmations {
  #waiting: Waiting[] = [];
  #bytes = 0;

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#waiting.length;
  }

  add(bytes: number): Promise<void> {
    const promise = new Promise<void>((resolve, reject) => this.#waiting.push({ bytes, resolve, reject }));
    this.#bytes += bytes;
    promise.catch(ignore);
    return promise;
  }

  confirmAll(): void {
    const waiting = this.#take();
    for (const entry of waiting) entry.resolve();
  }

  rejectAll(err: Error): void {
    const waiting = this.#take();
    for (const entry of waiting) entry.reject(err);
  }

  #take(): Waiting[] {
    const waiting = this.#waiting;
    this.#waiting = [];
    this.#bytes = 0;
    return waiting;
  }
}
