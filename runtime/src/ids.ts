import { randomBytes } from 'node:crypto';

/** A random, unguessable id with a readable prefix, e.g. `msg_3q2…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(15).toString('base64url')}`;
}
