import { performance } from 'node:perf_hooks';
import { FRAME_MS } from './speech-frames.js';

/** Something the clock ticks every 20 ms: a live call leg. */
export interface ClockListener {
  /** `dueAt` is the tick's scheduled time on the performance clock. */
  onTick(dueAt: number): void;
}

/**
 * Listeners are spread over this many phases of the 20 ms frame, each ticked 5 ms after the one
 * before: real calls start at unrelated times, so their frames do not all fall on one instant.
 */
const PHASES = 4;
/** The clock's step: one phase's turn. */
const STEP_MS = FRAME_MS / PHASES;
/** Steps more than this far behind (500 ms) are skipped: their frames are never sent. */
const MAX_BEHIND_STEPS = 25 * PHASES;
/** Catch-up runs at most this many steps (four frames of every listener) before letting I/O in (setImmediate), so sockets keep being read. */
const STEPS_PER_RUN = 4 * PHASES;

/**
 * One timer for every live call: it fires on a fixed grid of the monotonic clock (each wake-up is
 * scheduled against the grid, so timer lateness never accumulates into drift). Each listener joins
 * the least-used of four phases and is ticked every 20 ms at its phase's offset, so a quarter of the
 * calls send at a time. Steps missed while the event loop was blocked are caught up, a few at a time
 * between I/O, so each stream still sends one frame per 20 ms of wall time.
 */
export class FrameClock {
  readonly #phases: Set<ClockListener>[] = Array.from({ length: PHASES }, () => new Set());
  readonly #lateMs: number;
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #running = false;
  #origin = 0;
  #next = 0;
  #ticks = 0;
  #lateTicks = 0;
  #skipped = 0;
  #maxLagMs = 0;
  #costTotalMs = 0;
  #maxCostMs = 0;

  constructor(lateMs: number) {
    this.#lateMs = lateMs;
  }

  get size(): number {
    return this.#phases.reduce((n, phase) => n + phase.size, 0);
  }

  add(listener: ClockListener): void {
    this.#phases.reduce((least, phase) => (phase.size < least.size ? phase : least)).add(listener);
    if (!this.#timer && !this.#immediate && !this.#running) {
      this.#origin = performance.now();
      this.#next = 1;
      this.#schedule();
    }
  }

  delete(listener: ClockListener): void {
    for (const phase of this.#phases) phase.delete(listener);
    if (this.size === 0) this.#cancel();
  }

  stats(): { ticks: number; lateTicks: number; skippedTicks: number; maxTickLagMs: number; meanTickCostMs: number; maxTickCostMs: number } {
    return {
      ticks: this.#ticks,
      lateTicks: this.#lateTicks,
      skippedTicks: this.#skipped,
      maxTickLagMs: this.#maxLagMs,
      meanTickCostMs: this.#ticks > 0 ? this.#costTotalMs / this.#ticks : 0,
      maxTickCostMs: this.#maxCostMs,
    };
  }

  stop(): void {
    for (const phase of this.#phases) phase.clear();
    this.#cancel();
  }

  #cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#immediate) clearImmediate(this.#immediate);
    this.#timer = undefined;
    this.#immediate = undefined;
  }

  #schedule(): void {
    const wait = this.#origin + this.#next * STEP_MS - performance.now();
    // Still behind after a catch-up run: continue after pending I/O rather than on a timer.
    if (wait <= 0) this.#immediate = setImmediate(this.#run);
    else this.#timer = setTimeout(this.#run, Math.max(1, Math.round(wait)));
  }

  readonly #run = (): void => {
    this.#timer = undefined;
    this.#immediate = undefined;
    this.#running = true;
    let now = performance.now();
    const behind = Math.floor((now + 1 - this.#origin) / STEP_MS) - this.#next + 1;
    if (behind > MAX_BEHIND_STEPS) {
      this.#skipped += behind - MAX_BEHIND_STEPS;
      this.#next += behind - MAX_BEHIND_STEPS;
    }
    // A step due within the next millisecond runs now: timers have 1 ms granularity.
    for (let run = 0, due = this.#origin + this.#next * STEP_MS; due <= now + 1 && run < STEPS_PER_RUN; run++, due = this.#origin + this.#next * STEP_MS) {
      const lag = now - due;
      if (lag > this.#maxLagMs) this.#maxLagMs = lag;
      if (lag > this.#lateMs) this.#lateTicks++;
      const phase = this.#phases[this.#next % PHASES]!;
      for (const listener of phase) {
        try {
          listener.onTick(due);
        } catch {
          // A leg that throws stops being ticked; the others keep their pace.
          phase.delete(listener);
        }
      }
      const after = performance.now();
      const cost = after - now;
      this.#costTotalMs += cost;
      if (cost > this.#maxCostMs) this.#maxCostMs = cost;
      this.#ticks++;
      this.#next++;
      now = after;
    }
    this.#running = false;
    if (this.size > 0) this.#schedule();
  };
}
