/** A WhatsApp id as the Cloud API takes and gives it: the number's digits, no `+` (`+14155550123` → `14155550123`). */
export function toWaId(address: string): string {
  return address.replace(/^whatsapp:/i, '').replace(/[^0-9]/g, '');
}

/** A Cloud API number (`14155550123`, or a display form such as `+1 415-555-0123`) in E.164, as Switchboard keeps addresses. */
export function toE164(waId: string): string {
  return `+${waId.replace(/[^0-9]/g, '')}`;
}
