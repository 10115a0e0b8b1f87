import { BoundedMap } from '../bounded-map.js';

/** One event of a sent message, as GET /messages/outbound/{id}/details lists it in `MessageEvents`. */
export interface PostmarkMessageEvent {
  Recipient: string;
  Type: string;
  ReceivedAt: string;
  Details: Record<string, unknown>;
}

/** An email sent through POST /email. */
export interface PostmarkSentEmail {
  messageId: string;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  textBody: string | null;
  htmlBody: string | null;
  tag: string;
  messageStream: string;
  /** Custom headers the send named (In-Reply-To, References, …). */
  headers: Record<string, string>;
  metadata: Record<string, string>;
  events: PostmarkMessageEvent[];
  submittedAt: Date;
}

/** A bounce (or spam complaint) Postmark recorded: its numeric id, for PUT /bounces/{id}/activate. */
export interface PostmarkBounce {
  id: number;
  email: string;
  type: string;
  inactive: boolean;
}

/** What the simulated Postmark server holds: sent emails, bounces, and the addresses it deactivated. */
export class PostmarkLedger {
  /** The simulated server's id, as webhooks carry it (`ServerID`). */
  readonly serverId: number;
  readonly sent: BoundedMap<string, PostmarkSentEmail>;
  readonly bounces: BoundedMap<number, PostmarkBounce>;
  /** Addresses a hard bounce or a spam complaint deactivated, lower case: sends to them are refused with 406. */
  readonly inactive = new Set<string>();
  #bounceSeq = 0;

  constructor(capacity: number, serverId: number) {
    this.serverId = serverId;
    this.sent = new BoundedMap(capacity);
    this.bounces = new BoundedMap(capacity);
  }

  /** Records a bounce of `email`; a hard bounce or a complaint deactivates the address, as Postmark does. */
  addBounce(email: string, type: string): PostmarkBounce {
    const deactivates = type === 'HardBounce' || type === 'SpamComplaint';
    const bounce: PostmarkBounce = { id: 4_000_000_000 + ++this.#bounceSeq, email, type, inactive: deactivates };
    this.bounces.set(bounce.id, bounce);
    if (deactivates) this.inactive.add(email.toLowerCase());
    return bounce;
  }

  clear(): void {
    this.sent.clear();
    this.bounces.clear();
    this.inactive.clear();
  }
}

/**
 * A time as Postmark's API writes it: Eastern time with seven fractional digits and the offset,
 * `2024-01-15T12:01:05.1794748-05:00` (a fixed -05:00: the simulator keeps no daylight saving).
 */
export function postmarkTime(date: Date): string {
  const eastern = new Date(date.getTime() - 5 * 3_600_000).toISOString();
  return `${eastern.slice(0, 23)}0000-05:00`;
}
