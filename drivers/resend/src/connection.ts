import { subscribe } from 'node:diagnostics_channel';

/** The socket error of the last failed HTTP request made for one send. */
interface Watch {
  code?: string;
}

/** Sends in flight by their Idempotency-Key, each unique to one send. */
const watching = new Map<string, Watch>();
const byRequest = new WeakMap<object, Watch>();
let listening = false;

/** A request's Idempotency-Key: undici lists headers as name, value, name, value… (a string of lines before undici 6). */
function idempotencyKeyOf(headers: unknown): string | undefined {
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length - 1; i += 2) {
      if (String(headers[i]).toLowerCase() === 'idempotency-key') return String(headers[i + 1]);
    }
    return undefined;
  }
  if (typeof headers === 'string') return /^idempotency-key:\s*(.+?)\r?$/im.exec(headers)?.[1];
  return undefined;
}

/**
 * Node's fetch (undici) announces each request it creates, and each that fails, on diagnostics channels;
 * a request is tied to its send by the Idempotency-Key header it carries. (Not by AsyncLocalStorage: on
 * Node 20 one `run` turns on a promise hook for every promise the process makes from then on.)
 */
function listen(): void {
  if (listening) return;
  listening = true;
  subscribe('undici:request:create', (message) => {
    if (watching.size === 0) return;
    const request = (message as { request?: { headers?: unknown } }).request;
    const key = request ? idempotencyKeyOf(request.headers) : undefined;
    const watch = key === undefined ? undefined : watching.get(key);
    if (watch && request) byRequest.set(request, watch);
  });
  subscribe('undici:request:error', (message) => {
    const { request, error } = message as { request?: object; error?: { code?: unknown } };
    const watch = request ? byRequest.get(request) : undefined;
    if (watch && typeof error?.code === 'string') watch.code = error.code;
  });
}

/**
 * Runs a resend SDK call that sends with `idempotencyKey` and tells the socket error (ECONNREFUSED…) its
 * request met, if any: the SDK answers every failed fetch with "Unable to fetch data" and drops the cause,
 * which is what tells a connection never made (the email cannot have been taken) from an answer lost on
 * the way. Without a key nothing is watched and a failure stays ambiguous.
 */
export async function withSocketError<T>(idempotencyKey: string | undefined, call: () => Promise<T>): Promise<{ result: T; socketError: string | undefined }> {
  if (idempotencyKey === undefined) return { result: await call(), socketError: undefined };
  listen();
  const watch: Watch = {};
  watching.set(idempotencyKey, watch);
  try {
    return { result: await call(), socketError: watch.code };
  } finally {
    if (watching.get(idempotencyKey) === watch) watching.delete(idempotencyKey);
  }
}
