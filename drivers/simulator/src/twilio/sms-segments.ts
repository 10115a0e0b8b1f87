// GSM 03.38 default alphabet; the extension table's characters cost two septets (escape + char).
const GSM7_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const GSM7_EXTENSION = new Set('\f^{}\\[~]|€');

/** True when every character fits the GSM-7 alphabet (basic or extension table). */
export function isGsm7(text: string): boolean {
  for (const ch of text) if (!GSM7_BASIC.has(ch) && !GSM7_EXTENSION.has(ch)) return false;
  return true;
}

/**
 * Number of SMS segments Twilio bills for `text`: GSM-7 fits 160 septets in one segment and 153
 * per segment when concatenated; anything else is UCS-2, 70 UTF-16 units alone and 67 per segment.
 * A two-unit character (escape sequence, surrogate pair) is never split across segments.
 */
export function countSegments(text: string): number {
  if (text.length === 0) return 1;
  const gsm = isGsm7(text);
  const costs: number[] = [];
  for (const ch of text) costs.push(gsm ? (GSM7_EXTENSION.has(ch) ? 2 : 1) : ch.length);
  const total = costs.reduce((a, b) => a + b, 0);
  const single = gsm ? 160 : 70;
  if (total <= single) return 1;
  const perSegment = gsm ? 153 : 67;
  let segments = 1;
  let used = 0;
  for (const cost of costs) {
    if (used + cost > perSegment) {
      segments++;
      used = 0;
    }
    used += cost;
  }
  return segments;
}
