import type { Channel } from '@switchboard/sdk';

const WHATSAPP = 'whatsapp:';

/** The address as Twilio expects it on a channel: WhatsApp numbers carry the `whatsapp:` prefix. */
export function toTwilioAddress(channel: Channel, address: string): string {
  if (channel !== 'whatsapp' || address.toLowerCase().startsWith(WHATSAPP)) return address;
  return `${WHATSAPP}${address}`;
}

/** A Twilio address without its channel prefix, e.g. `whatsapp:+15551234567` → `+15551234567`. */
export function fromTwilioAddress(address: string): string {
  return address.toLowerCase().startsWith(WHATSAPP) ? address.slice(WHATSAPP.length) : address;
}

/** True when Twilio marked the address as a WhatsApp one. */
export function isWhatsAppAddress(address: string | undefined): boolean {
  return address !== undefined && address.toLowerCase().startsWith(WHATSAPP);
}
