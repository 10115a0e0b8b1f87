import { createHash, randomBytes } from 'node:crypto';
import { BoundedMap } from '../bounded-map.js';
import { WhatsAppWindows } from '../twilio/whatsapp-window.js';

/** A Cloud API message status as its webhooks name it. */
export type CloudMessageStatus = 'accepted' | 'sent' | 'delivered' | 'read' | 'failed';

/** An outbound message as the simulated Cloud API keeps it. */
export interface CloudMessage {
  id: string;
  phoneNumberId: string;
  /** The business number, E.164. */
  from: string;
  /** The user's WhatsApp id (digits). */
  to: string;
  status: CloudMessageStatus;
  /** The conversation pricing category: `service` for free-form, the template's category otherwise. */
  category: string;
  error?: { code: number; title: string; message: string; error_data: { details: string } };
  at: Date;
}

/** A business phone number of the simulated WhatsApp Business Account. */
export interface CloudPhoneNumber {
  id: string;
  /** E.164. */
  number: string;
  /** Where Meta posts this number's `messages` webhooks (the app's callback, or the number's override). */
  callbackUrl?: string;
}

/** A numeric Graph id of `digits` digits. */
export function graphId(digits = 15): string {
  let id = String(1 + (randomBytes(1)[0]! % 9));
  while (id.length < digits) id += String(randomBytes(1)[0]! % 10);
  return id;
}

/** A stable numeric id for a template name, as Meta's look. */
export function templateId(name: string): string {
  return (BigInt(`0x${createHash('md5').update(name).digest('hex').slice(0, 13)}`) + 1_000_000_000_000_000n).toString();
}

/** A `wamid.` message id: base64 of an opaque value, as the Cloud API answers. */
export function wamid(): string {
  return `wamid.${Buffer.from(`HBgL${randomBytes(24).toString('hex').toUpperCase()}`).toString('base64')}`;
}

/** What the simulated WhatsApp Business Account remembers. */
export class CloudLedger {
  readonly messages: BoundedMap<string, CloudMessage>;
  readonly numbers = new Map<string, CloudPhoneNumber>();
  /** When each user last wrote to each business number, on the simulator's clock. */
  readonly windows = new WhatsAppWindows();

  constructor(capacity: number, phoneNumbers: readonly string[], firstId: string) {
    this.messages = new BoundedMap(capacity);
    phoneNumbers.forEach((number, i) => {
      const id = i === 0 ? firstId : graphId();
      this.numbers.set(id, { id, number });
    });
  }

  /** The business number with this E.164 address. */
  byNumber(number: string): CloudPhoneNumber | undefined {
    const digits = number.replace(/[^0-9]/g, '');
    return [...this.numbers.values()].find((n) => n.number.replace(/[^0-9]/g, '') === digits);
  }

  clear(): void {
    this.messages.clear();
    this.windows.clear();
  }
}
