import { randomFillSync } from 'node:crypto';
import { encodeTime, monotonicFactory } from 'ulid';

/** Random bytes are drawn 4 KiB at a time: one getrandom() call per few hundred ids instead of one per id. */
const pool = Buffer.alloc(4096);
let used = pool.length;

function take(n: number): number {
  if (used + n > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const at = used;
  used += n;
  return at;
}

/** ulid's PRNG contract: a float in [0, 1). A byte over 256 keeps its five top bits unbiased. */
const nextUlid = monotonicFactory(() => pool[take(1)]! / 256);

/**
 * A time-ordered id with a readable prefix, e.g. `msg_01JD8…`: a ULID (48-bit millisecond time,
 * then 80 random bits), from a monotonic factory so that ids made in one millisecond still sort in
 * the order made. Rows keyed by it are appended at the right edge of the B-tree instead of
 * splitting pages all over it. Record ids only: within a millisecond the next id is the previous
 * one plus one, so an id that grants access must come from `newSecretId`.
 */
export function newId(prefix: string): string {
  return `${prefix}_${nextUlid()}`;
}

/**
 * A time-ordered id that is also a capability (whoever holds it may act with it): the ULID time
 * prefix, then 128 fresh random bits (base64url), so knowing one id tells nothing of another.
 */
export function newSecretId(prefix: string): string {
  const at = take(16);
  return `${prefix}_${encodeTime(Date.now(), 10)}${pool.toString('base64url', at, at + 16)}`;
}
