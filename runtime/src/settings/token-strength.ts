/** Fewest characters a configured token may have. */
export const TOKEN_MIN_LENGTH = 32;
/** Bits a token must carry by the estimate below: a 128-bit random value, as `openssl rand -hex 16` gives. */
const MIN_BITS = 128;

/**
 * Why a configured bearer token is too weak to guard the admin API, or undefined when it is strong
 * enough. A cheap estimate, not a proof: at least 32 characters; length times log2 of the alphabet
 * its character classes span at least 128 bits; and no sign of a pattern (few distinct characters,
 * a skewed mix, a repeated block). Every token Switchboard generates passes, as does 32 random hex digits.
 */
export function tokenWeakness(token: string): string | undefined {
  if (token.length < TOKEN_MIN_LENGTH) return `is ${token.length} character${token.length === 1 ? '' : 's'} long; a token needs at least ${TOKEN_MIN_LENGTH} random characters`;
  const pool = (/[a-z]/.test(token) ? 26 : 0) + (/[A-Z]/.test(token) ? 26 : 0) + (/[0-9]/.test(token) ? 10 : 0) + (/[^A-Za-z0-9]/.test(token) ? 33 : 0);
  const counts = new Map<string, number>();
  for (const c of token) counts.set(c, (counts.get(c) ?? 0) + 1);
  // Shannon entropy of the token's own character mix, per character, times its length.
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / token.length) * Math.log2(n / token.length);
  const repeated = shortestPeriod(token) <= token.length / 2;
  if (token.length * Math.log2(pool) < MIN_BITS || counts.size < 8 || perChar * token.length < 80 || repeated) {
    return 'looks predictable (too few distinct characters, or a repeated pattern); a token needs about 128 random bits';
  }
  return undefined;
}

/** The shortest p with token[i] === token[i + p] throughout (KMP prefix function): `abcabcab` has 3. */
function shortestPeriod(text: string): number {
  const border = new Array<number>(text.length).fill(0);
  for (let i = 1, k = 0; i < text.length; i++) {
    while (k > 0 && text[i] !== text[k]) k = border[k - 1]!;
    if (text[i] === text[k]) k++;
    border[i] = k;
  }
  return text.length - (border[text.length - 1] ?? 0);
}
