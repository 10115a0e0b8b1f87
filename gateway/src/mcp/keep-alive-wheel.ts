/** Width of a keep-alive slot: the streams of one slot are written in one timer turn. */
const SLOT_MS = 50;

/**
 * One timer for the keep-alives of every stream with the same interval. Each stream gets a random
 * slot of the interval and is written once per interval, in its slot. A timer per stream started
 * with its stream writes streams opened together (a client fleet reconnecting) in one timer turn,
 * every interval: a stall for everything else. A timer per stream at a random offset spreads them,
 * but costs an event-loop wake-up per keep-alive. Slots bound both (docs/DECISIONS.md, "Ingest and
 * notification latency").
 */
class KeepAliveWheel {
  readonly #slots: Set<() => void>[];
  readonly #slotMs: number;
  #turn = 0;
  #size = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(intervalMs: number) {
    const slots = Math.max(1, Math.round(intervalMs / SLOT_MS));
    this.#slots = Array.from({ length: slots }, () => new Set());
    this.#slotMs = intervalMs / slots;
  }

  /** Calls `tick` once per interval until the returned function is called. */
  add(tick: () => void): () => void {
    const slot = this.#slots[Math.floor(Math.random() * this.#slots.length)]!;
    slot.add(tick);
    this.#size += 1;
    if (!this.#timer) {
      this.#timer = setInterval(() => this.#advance(), this.#slotMs);
      this.#timer.unref();
    }
    return () => {
      if (!slot.delete(tick)) return;
      this.#size -= 1;
      if (this.#size === 0) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  #advance(): void {
    this.#turn = (this.#turn + 1) % this.#slots.length;
    for (const tick of this.#slots[this.#turn]!) tick();
  }
}

const wheels = new Map<number, KeepAliveWheel>();

/** Calls `tick` every `intervalMs`, at a random offset, sharing one timer with every stream of that interval; returns the stop function. */
export function everyInterval(intervalMs: number, tick: () => void): () => void {
  let wheel = wheels.get(intervalMs);
  if (!wheel) wheels.set(intervalMs, (wheel = new KeepAliveWheel(intervalMs)));
  return wheel.add(tick);
}
