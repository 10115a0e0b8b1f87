// Messages between the store (main thread) and its writer worker. Both sides batch: every message
// queued in one turn of the event loop travels in one postMessage.
import type { SqlStatement, SqlValue } from './database.js';

/** What the store asks of the writer; each request is answered once, by `id`. */
export type WriterRequest =
  | { readonly kind: 'write'; readonly id: number; readonly statements: readonly SqlStatement[] }
  | { readonly kind: 'begin'; readonly id: number; readonly tx: number }
  | { readonly kind: 'statement'; readonly id: number; readonly tx: number; readonly op: 'run' | 'all'; readonly sql: string; readonly params: readonly SqlValue[] }
  | { readonly kind: 'end'; readonly id: number; readonly tx: number; readonly commit: boolean }
  | { readonly kind: 'close'; readonly id: number };

/** An error as it crosses threads: SQLite's `code` and `errno` survive, unlike on a cloned Error. */
export interface WireError {
  readonly message: string;
  readonly code?: string;
  readonly errno?: number;
}

export type WriterReply = { readonly id: number; readonly ok: true; readonly value: unknown } | { readonly id: number; readonly ok: false; readonly error: WireError };

export function toWireError(err: unknown): WireError {
  const { message, code, errno } = err as { message?: string; code?: unknown; errno?: unknown };
  return {
    message: typeof message === 'string' ? message : String(err),
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof errno === 'number' ? { errno } : {}),
  };
}

export function fromWireError(wire: WireError): Error {
  return Object.assign(new Error(wire.message), wire.code === undefined ? {} : { code: wire.code }, wire.errno === undefined ? {} : { errno: wire.errno });
}

/**
 * Structured cloning turns a Buffer into a plain Uint8Array; this turns such values (parameters,
 * BLOB columns) back into Buffers, as `sqlite3` gives and takes them.
 */
export function revive<T>(value: T): T {
  if (value instanceof Uint8Array && !Buffer.isBuffer(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength) as T;
  if (Array.isArray(value)) return value.map(revive) as T;
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    for (const key of Object.keys(value)) (value as Record<string, unknown>)[key] = revive((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** Collects items and hands them over together at the end of the current turn. */
export function batcher<T>(send: (items: T[]) => void): (item: T) => void {
  let queued: T[] = [];
  return (item) => {
    queued.push(item);
    if (queued.length > 1) return;
    queueMicrotask(() => {
      const items = queued;
      queued = [];
      send(items);
    });
  };
}
