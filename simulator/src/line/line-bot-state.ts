import { BoundedMap } from '../bounded-map.js';

/** A reply token handed out with an inbound event; LINE accepts each once. */
export interface IssuedReplyToken {
  userId: string;
  issuedAt: Date;
}

/** A push accepted under an X-Line-Retry-Key, answered 409 when retried. */
export interface AcceptedRetry {
  requestId: string;
  sentMessages: { id: string; quoteToken: string }[];
}

/** What the simulated LINE channel remembers: unused reply tokens and accepted retry keys. */
export class LineBotState {
  readonly replyTokens: BoundedMap<string, IssuedReplyToken>;
  readonly retryKeys: BoundedMap<string, AcceptedRetry>;

  constructor(capacity: number) {
    this.replyTokens = new BoundedMap(capacity);
    this.retryKeys = new BoundedMap(capacity);
  }

  clear(): void {
    this.replyTokens.clear();
    this.retryKeys.clear();
  }
}
