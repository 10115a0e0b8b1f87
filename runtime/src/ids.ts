import { randomFillSync } from 'node:crypto';

const ID_BYTES = 15;
/** Random bytes are drawn 4 KiB at a time: one getrandom() call per ~270 ids instead of one per id. */
const pool = Buffer.alloc(4095);
let used = pool.length;

/** A random, unguessable id with a readable prefix, e.g. `msg_3q2…`. */
export function newId(prefix: string): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const bytes = pool.toString('base64url', used, used + ID_BYTES);
  used += ID_BYTES;
  return `${prefix}_${bytes}`;
}
