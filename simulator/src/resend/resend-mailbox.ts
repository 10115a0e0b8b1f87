import { BoundedMap } from '../bounded-map.js';
import type { SimResponse } from '../http/sim-response.js';

/** An email sent through POST /emails. */
export interface SentEmail {
  id: string;
  from: string;
  to: string[];
  cc: string[] | null;
  bcc: string[] | null;
  replyTo: string[] | null;
  subject: string;
  html: string | null;
  text: string | null;
  tags: { name: string; value: string }[] | undefined;
  scheduledAt: string | null;
  messageId: string;
  /** Custom headers the send named (In-Reply-To, References, …). */
  headers: Record<string, string>;
  lastEvent: string;
  createdAt: Date;
}

/** An email received by a Resend inbound domain. */
export interface ReceivedEmail {
  id: string;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[] | null;
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  messageId: string;
  createdAt: Date;
}

/** A remembered Idempotency-Key: the body it came with and the answer given. */
export interface IdempotentAnswer {
  bodyDigest: string;
  response: SimResponse;
}

/** Emails the simulated Resend account has sent and received, and its idempotency keys. */
export class ResendMailbox {
  readonly sent: BoundedMap<string, SentEmail>;
  readonly received: BoundedMap<string, ReceivedEmail>;
  readonly idempotency: BoundedMap<string, IdempotentAnswer>;

  constructor(capacity: number) {
    this.sent = new BoundedMap(capacity);
    this.received = new BoundedMap(capacity);
    this.idempotency = new BoundedMap(capacity);
  }

  clear(): void {
    this.sent.clear();
    this.received.clear();
    this.idempotency.clear();
  }
}
