import { BoundedMap } from '../bounded-map.js';
import { twilioSid } from '../ids.js';
import type { SimCall } from '../types.js';
import type { SimRecording } from './recordings.js';
import { WhatsAppWindows } from './whatsapp-window.js';

/** An outbound message as the simulated Twilio account stores it. */
export interface TwilioMessage {
  sid: string;
  accountSid: string;
  channel: 'sms' | 'whatsapp';
  /** null when sent through a Messaging Service without From, until a sender is picked. */
  from: string | null;
  /** The sender picked for callbacks when `from` is null. */
  sender: string;
  to: string;
  body: string;
  status: string;
  numSegments: number;
  mediaUrls: string[];
  price: string | null;
  errorCode: number | null;
  errorMessage: string | null;
  messagingServiceSid: string | null;
  statusCallback?: string;
  /** A Content API template sent instead of a body, with the values of its placeholders. */
  contentSid?: string;
  contentVariables?: Record<string, string>;
  dateCreated: Date;
  dateUpdated: Date;
  dateSent: Date | null;
}

/** A number the simulated account owns. */
export interface OwnedNumber {
  sid: string;
  phoneNumber: string;
  createdAt: Date;
}

/** Resources of the simulated Twilio account: messages, calls, call recordings and owned numbers. */
export class TwilioLedger {
  readonly messages: BoundedMap<string, TwilioMessage>;
  readonly calls: BoundedMap<string, SimCall>;
  readonly recordings: BoundedMap<string, SimRecording>;
  readonly numbers: OwnedNumber[];
  /** When each WhatsApp user last wrote to each sender: free-form messages outside it fail with 63016. */
  readonly whatsappWindows = new WhatsAppWindows();

  constructor(capacity: number, phoneNumbers: string[]) {
    this.messages = new BoundedMap(capacity);
    this.calls = new BoundedMap(capacity);
    this.recordings = new BoundedMap(capacity);
    const createdAt = new Date();
    this.numbers = phoneNumbers.map((phoneNumber) => ({ sid: twilioSid('PN'), phoneNumber, createdAt }));
  }

  clear(): void {
    this.messages.clear();
    this.calls.clear();
    this.recordings.clear();
    this.whatsappWindows.clear();
  }
}
