/** A W3C trace-context `traceparent` (version-traceid-parentid-flags). */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The value when it is a well-formed W3C `traceparent`, else undefined (others are dropped, never logged). */
export function traceparentOf(value: unknown): string | undefined {
  return typeof value === 'string' && TRACEPARENT.test(value) ? value : undefined;
}

/** `{ traceparent }` when there is one, to spread into options. */
export function withTrace(traceparent: string | undefined): { traceparent?: string } {
  return traceparent ? { traceparent } : {};
}
