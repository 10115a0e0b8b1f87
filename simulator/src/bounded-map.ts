/** A Map that forgets its oldest entries beyond `capacity`, for resources created under load. */
export class BoundedMap<K, V> {
  readonly capacity: number;
  #map = new Map<K, V>();

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  set(key: K, value: V): void {
    if (this.#map.has(key)) this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.capacity) {
      const oldest = this.#map.keys().next();
      if (!oldest.done) this.#map.delete(oldest.value);
    }
  }

  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  /** Values oldest first. */
  values(): V[] {
    return [...this.#map.values()];
  }

  clear(): void {
    this.#map.clear();
  }
}
