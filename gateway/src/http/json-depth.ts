/**
 * The deepest nesting of objects and arrays a request may carry. No request body needs more than
 * three levels; JSON.stringify, structuredClone and the bus's copies recurse per level and overflow
 * the stack in the low thousands, so the bound sits far from both (see docs/DECISIONS.md).
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether JSON text nests objects and arrays deeper than `max`, found in one pass over the bytes
 * before anything is parsed: brackets inside strings do not count. Multi-byte UTF-8 never contains
 * these ASCII bytes, so reading bytes is exact; text that is not JSON is left for the parser to refuse.
 */
export function jsonTooDeep(bytes: Uint8Array, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth--;
  }
  return false;
}

/** The same bound for a value already parsed (an MCP tool's arguments), walked without recursion. */
export function valueTooDeep(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== 'object') continue;
    // A cycle only ever goes deeper, so it ends here too.
    if (depth > max) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}
