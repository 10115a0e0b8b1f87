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
