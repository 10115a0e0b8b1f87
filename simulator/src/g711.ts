// G.711 companding (ITU-T G.711), as telephony carries 8 kHz audio: μ-law in North America and
// Japan (Twilio Media Streams), A-law elsewhere.

const MULAW_BIAS = 0x84;
const MULAW_CLIP = 32635;

/** One 16-bit linear sample to a μ-law byte. */
export function linearToMulaw(sample: number): number {
  let s = Math.max(-32768, Math.min(32767, Math.round(sample)));
  const sign = s < 0 ? 0x80 : 0;
  if (sign) s = -s;
  if (s > MULAW_CLIP) s = MULAW_CLIP;
  s += MULAW_BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; exponent--, mask >>= 1);
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** One μ-law byte to a 16-bit linear sample. */
export function mulawToLinear(byte: number): number {
  const u = ~byte & 0xff;
  const exponent = (u >> 4) & 0x07;
  const sample = ((((u & 0x0f) << 3) + MULAW_BIAS) << exponent) - MULAW_BIAS;
  return u & 0x80 ? -sample : sample;
}

/** One 16-bit linear sample to an A-law byte. */
export function linearToAlaw(sample: number): number {
  let pcm = Math.max(-32768, Math.min(32767, Math.round(sample))) >> 3;
  let mask: number;
  if (pcm >= 0) mask = 0xd5;
  else {
    mask = 0x55;
    pcm = -pcm - 1;
  }
  let segment = 0;
  while (segment < 8 && pcm > (0x20 << segment) - 1) segment++;
  if (segment >= 8) return 0x7f ^ mask;
  const mantissa = segment < 2 ? (pcm >> 1) & 0x0f : (pcm >> segment) & 0x0f;
  return ((segment << 4) | mantissa) ^ mask;
}

export function encodeMulaw(samples: Int16Array): Buffer {
  const out = Buffer.allocUnsafe(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = linearToMulaw(samples[i]!);
  return out;
}

export function decodeMulaw(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = mulawToLinear(bytes[i]!);
  return out;
}

export function encodeAlaw(samples: Int16Array): Buffer {
  const out = Buffer.allocUnsafe(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = linearToAlaw(samples[i]!);
  return out;
}
