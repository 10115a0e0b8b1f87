import { countSegments as count } from '@switchboard/sdk';

/** Number of SMS segments Twilio bills for `text` (GSM-7 or UCS-2 rules, shared with the runtime through the sdk). */
export function countSegments(text: string): number {
  return count(text).segments;
}
