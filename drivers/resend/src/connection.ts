import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';

/** The socket error of the last failed HTTP request made within one SDK call. */
interface Watch {
  code?: string;
}

const watching = new AsyncLocalStorage<Watch>();
const byRequest = new WeakMap<object, Watch>();
let listening = false;

/**
 * Node's fetch (undici) announces each request it creates, and each that fails, on diagnostics
 * channels; the request is created in the caller's async context, so a failure is tied to its call.
 */
function listen(): void {
  if (listening) return;
  listening = true;
  subscribe('undici:request:create', (message) => {
    const watch = watching.getStore();
    const request = (message as { request?: object }).request;
    if (watch && request) byRequest.set(request, watch);
  });
  subscribe('undici:request:error', (message) => {
    const { request, error } = message as { request?: object; error?: { code?: unknown } };
    const watch = request ? byRequest.get(request) : undefined;
    if (watch && typeof error?.code === 'string') watch.code = error.code;
  });
}

/**
 * Runs a resend SDK call and tells the socket error (ECONNREFUSED…) its request met, if any: the SDK
 * answers every failed fetch with "Unable to fetch data" and drops the cause, which is what tells a
 * connection never made (the email cannot have been taken) from an answer lost on the way.
 */
export async function withSocketError<T>(call: () => Promise<T>): Promise<{ result: T; socketError: string | undefined }> {
  listen();
  const watch: Watch = {};
  const result = await watching.run(watch, call);
  return { result, socketError: watch.code };
}
