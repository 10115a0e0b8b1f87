// ITU-T G.711 μ-law and A-law codecs. The per-sample functions follow the reference algorithm
// (the public-domain Sun g711.c); the bulk functions use tables built from them once at load time,
// so a frame costs one table lookup per sample and no allocation.

const SIGN_BIT = 0x80;
const QUANT_MASK = 0x0f;
const SEG_SHIFT = 4;
const SEG_MASK = 0x70;
const MULAW_BIAS = 0x84;
const MULAW_CLIP = 8159;
const MULAW_SEG_END = [0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff, 0x1fff] as const;
const ALAW_SEG_END = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff] as const;

/** μ-law byte for digital silence (linear 0). */
export const MULAW_SILENCE = 0xff;
/** A-law byte for linear 0 (decodes to +8, the smallest positive step). */
export const ALAW_SILENCE = 0xd5;

function segment(value: number, ends: readonly number[]): number {
  for (let seg = 0; seg < ends.length; seg++) if (value <= ends[seg]!) return seg;
  return ends.length;
}

/** Encodes one 16-bit linear sample to μ-law (reference algorithm, no table). */
export function linearToMulaw(sample: number): number {
  let pcm = sample >> 2; // μ-law carries 14 bits
  let mask: number;
  if (pcm < 0) {
    pcm = -pcm;
    mask = 0x7f;
  } else {
    mask = 0xff;
  }
  if (pcm > MULAW_CLIP) pcm = MULAW_CLIP;
  pcm += MULAW_BIAS >> 2;
  const seg = segment(pcm, MULAW_SEG_END);
  if (seg >= 8) return 0x7f ^ mask;
  return ((seg << 4) | ((pcm >> (seg + 1)) & QUANT_MASK)) ^ mask;
}

/** Decodes one μ-law byte to a 16-bit linear sample (reference algorithm, no table). */
export function mulawToLinear(code: number): number {
  const u = ~code & 0xff;
  let t = ((u & QUANT_MASK) << 3) + MULAW_BIAS;
  t <<= (u & SEG_MASK) >> SEG_SHIFT;
  return u & SIGN_BIT ? MULAW_BIAS - t : t - MULAW_BIAS;
}

/** Encodes one 16-bit linear sample to A-law (reference algorithm, no table). */
export function linearToAlaw(sample: number): number {
  let pcm = sample >> 3; // A-law carries 13 bits
  let mask: number;
  if (pcm >= 0) {
    mask = 0xd5;
  } else {
    mask = 0x55;
    pcm = -pcm - 1;
  }
  const seg = segment(pcm, ALAW_SEG_END);
  if (seg >= 8) return 0x7f ^ mask;
  const quant = seg < 2 ? (pcm >> 1) & QUANT_MASK : (pcm >> seg) & QUANT_MASK;
  return ((seg << SEG_SHIFT) | quant) ^ mask;
}

/** Decodes one A-law byte to a 16-bit linear sample (reference algorithm, no table). */
export function alawToLinear(code: number): number {
  const a = (code ^ 0x55) & 0xff;
  let t = (a & QUANT_MASK) << 4;
  const seg = (a & SEG_MASK) >> SEG_SHIFT;
  if (seg === 0) t += 8;
  else if (seg === 1) t += 0x108;
  else t = (t + 0x108) << (seg - 1);
  return a & SIGN_BIT ? t : -t;
}

function decodeTable(decode: (code: number) => number): Int16Array {
  const table = new Int16Array(256);
  for (let code = 0; code < 256; code++) table[code] = decode(code);
  return table;
}

// Both encoders look only at the top 14 bits of a sample (μ-law shifts by 2, A-law by 3), so a
// 16384-entry table indexed by those bits is exact: index = (sample >> 2) & 0x3fff.
function encodeTable(encode: (sample: number) => number): Uint8Array {
  const table = new Uint8Array(16384);
  for (let index = 0; index < 16384; index++) {
    const top14 = index < 8192 ? index : index - 16384;
    table[index] = encode(top14 << 2);
  }
  return table;
}

const MULAW_DECODE = decodeTable(mulawToLinear);
const ALAW_DECODE = decodeTable(alawToLinear);
const MULAW_ENCODE = encodeTable(linearToMulaw);
const ALAW_ENCODE = encodeTable(linearToAlaw);

function checkRoom(needed: number, available: number): void {
  if (available < needed) throw new RangeError(`output holds ${available} samples, ${needed} needed`);
}

function decodeWith(table: Int16Array, src: Uint8Array, dst: Int16Array): Int16Array {
  const n = src.length;
  checkRoom(n, dst.length);
  for (let i = 0; i < n; i++) dst[i] = table[src[i]!]!;
  return dst.length === n ? dst : dst.subarray(0, n);
}

function encodeWith(table: Uint8Array, src: Int16Array, dst: Uint8Array): Uint8Array {
  const n = src.length;
  checkRoom(n, dst.length);
  for (let i = 0; i < n; i++) dst[i] = table[(src[i]! >> 2) & 0x3fff]!;
  return dst.length === n ? dst : dst.subarray(0, n);
}

/** Decodes μ-law bytes into `dst` (allocated when omitted); returns the `src.length` samples written. */
export function decodeMulaw(src: Uint8Array, dst: Int16Array = new Int16Array(src.length)): Int16Array {
  return decodeWith(MULAW_DECODE, src, dst);
}

/** Encodes 16-bit samples to μ-law into `dst` (allocated when omitted); returns the `src.length` bytes written. */
export function encodeMulaw(src: Int16Array, dst: Uint8Array = new Uint8Array(src.length)): Uint8Array {
  return encodeWith(MULAW_ENCODE, src, dst);
}

/** Decodes A-law bytes into `dst` (allocated when omitted); returns the `src.length` samples written. */
export function decodeAlaw(src: Uint8Array, dst: Int16Array = new Int16Array(src.length)): Int16Array {
  return decodeWith(ALAW_DECODE, src, dst);
}

/** Encodes 16-bit samples to A-law into `dst` (allocated when omitted); returns the `src.length` bytes written. */
export function encodeAlaw(src: Int16Array, dst: Uint8Array = new Uint8Array(src.length)): Uint8Array {
  return encodeWith(ALAW_ENCODE, src, dst);
}
