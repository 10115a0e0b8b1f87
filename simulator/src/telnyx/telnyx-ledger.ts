import { BoundedMap } from '../bounded-map.js';
import type { SimCall } from '../types.js';

/** Delivery states of a Telnyx message recipient (`to[].status`). */
export type TelnyxMessageStatus = 'queued' | 'sending' | 'sent' | 'delivered' | 'sending_failed' | 'delivery_failed' | 'delivery_unconfirmed';

/** An outbound message as the simulated Telnyx keeps it. */
export interface TelnyxMessage {
  id: string;
  type: 'SMS' | 'MMS';
  from: string;
  to: string;
  text: string;
  subject: string | null;
  mediaUrls: string[];
  messagingProfileId: string;
  webhookUrl: string | null;
  webhookFailoverUrl: string | null;
  parts: number;
  encoding: 'GSM-7' | 'UCS-2';
  status: TelnyxMessageStatus;
  /** USD amount once finalized, as Telnyx's decimal string. */
  cost: string | null;
  errors: { code: string; title: string; detail: string }[];
  receivedAt: Date;
  sentAt: Date | null;
  completedAt: Date | null;
}

/** What the simulated Telnyx account remembers. */
export class TelnyxLedger {
  readonly messages: BoundedMap<string, TelnyxMessage>;
  /** Call Control calls by call_control_id. */
  readonly calls: BoundedMap<string, SimCall>;
  /** The account's messaging profile; every number belongs to it. */
  readonly messagingProfileId: string;
  readonly organizationId: string;

  constructor(capacity: number, messagingProfileId: string, organizationId: string) {
    this.messages = new BoundedMap(capacity);
    this.calls = new BoundedMap(capacity);
    this.messagingProfileId = messagingProfileId;
    this.organizationId = organizationId;
  }

  clear(): void {
    this.messages.clear();
    this.calls.clear();
  }
}
