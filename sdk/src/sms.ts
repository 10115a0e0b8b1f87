// GSM 03.38 default alphabet (one septet each) and its extension table (escape + septet = two).
const GSM_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const GSM_EXTENDED = new Set('\f^{}\\[~]|€');

/** How an SMS body is encoded and split, as carriers bill it. */
export interface SegmentCount {
  readonly encoding: 'GSM-7' | 'UCS-2';
  readonly segments: number;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2) the body takes. */
  readonly units: number;
}

/**
 * Counts SMS segments: GSM-7 holds 160 septets in one part and 153 per part when split;
 * any other character forces UCS-2 (70 code units, 67 per part). A character is never split across parts.
 */
export function countSegments(body: string): SegmentCount {
  const chars = Array.from(body);
  const gsm = chars.every((c) => GSM_BASIC.has(c) || GSM_EXTENDED.has(c));
  const sizes = chars.map((c) => (gsm ? (GSM_EXTENDED.has(c) ? 2 : 1) : c.length));
  const units = sizes.reduce((a, b) => a + b, 0);
  const [single, multi] = gsm ? [160, 153] : [70, 67];
  if (units <= single) return { encoding: gsm ? 'GSM-7' : 'UCS-2', segments: 1, units };
  let segments = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > multi) {
      segments += 1;
      used = 0;
    }
    used += size;
  }
  return { encoding: gsm ? 'GSM-7' : 'UCS-2', segments, units };
}
