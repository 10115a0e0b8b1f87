/** Handles a message; for a request, what it returns (or throws) is the reply. */
export type BusHandler = (data: unknown, subject: string) => unknown;

/** A live subscription. */
export interface Subscription {
  /** Stops taking new messages; one already on its way to this subscriber is still handled, so a request is never dropped unanswered. */
  unsubscribe(): void;
  /** True once the subscription no longer delivers (unsubscribed, or closed by the server or the connection). */
  isClosed?(): boolean;
}

export interface SubscribeOptions {
  /** Members of one queue group share the messages: each goes to exactly one member. */
  queue?: string;
}

export interface RequestOptions {
  /** Milliseconds before the request fails with TIMEOUT (default 5000). */
  timeoutMs?: number;
}

/**
 * The message bus between gateway and runtime. Subjects are dot-separated tokens; subscriptions may
 * use `*` (one token) and `>` (the rest). Payloads are JSON values and cross the bus as copies.
 * Errors thrown by a request handler reach the requester as SwitchboardErrors with the same code.
 */
export interface Bus {
  request<T = unknown>(subject: string, data: unknown, options?: RequestOptions): Promise<T>;
  publish(subject: string, data: unknown): void;
  subscribe(subject: string, handler: BusHandler, options?: SubscribeOptions): Subscription;
  /** Stops delivering; pending requests fail with UNAVAILABLE. */
  close(): Promise<void>;
}

/** True when a subject matches a subscription pattern with NATS wildcards. */
export function subjectMatches(pattern: string, subject: string): boolean {
  if (pattern === subject) return true;
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}
