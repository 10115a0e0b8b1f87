/** Keeps the last `capacity` items pushed, so recording under load never grows memory. */
export class RingBuffer<T> {
  readonly capacity: number;
  #items: (T | undefined)[];
  #next = 0;
  #size = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`Ring buffer capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
    this.#items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.#size;
  }

  push(item: T): void {
    this.#items[this.#next] = item;
    this.#next = (this.#next + 1) % this.capacity;
    if (this.#size < this.capacity) this.#size++;
  }

  /** Items oldest first. */
  toArray(): T[] {
    const out: T[] = [];
    const start = (this.#next - this.#size + this.capacity) % this.capacity;
    for (let i = 0; i < this.#size; i++) out.push(this.#items[(start + i) % this.capacity] as T);
    return out;
  }

  clear(): void {
    this.#items = new Array<T | undefined>(this.capacity);
    this.#next = 0;
    this.#size = 0;
  }
}
