import type { Exchange } from '../http/exchange.js';

/** Headers uWS writes itself, or that describe a hop rather than the message. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'content-length', 'transfer-encoding', 'host', 'upgrade']);

/**
 * The Fetch API Request for an exchange, for handlers written to Web standards (the MCP SDK's).
 * `omitHeaders` keeps headers, such as the credential, from code that has no need to see them.
 */
export function toFetchRequest(exchange: Exchange, body: Buffer | undefined, omitHeaders: readonly string[] = []): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(exchange.headers)) {
    if (!HOP_HEADERS.has(name) && !omitHeaders.includes(name)) headers.append(name, value);
  }
  const query = exchange.queryString ? `?${exchange.queryString}` : '';
  let url: URL;
  try {
    url = new URL(`${exchange.path}${query}`, `http://${exchange.headers.host ?? 'localhost'}`);
  } catch {
    url = new URL(`${exchange.path}${query}`, 'http://localhost');
  }
  return new Request(url, { method: exchange.method, headers, body: body && body.length > 0 ? body : null });
}

/**
 * Writes a Fetch API Response to an exchange. An event stream is streamed chunk by chunk as the
 * producer enqueues it; the exchange caps what waits in user space and cancels the body when the
 * client goes away. Other bodies are small JSON and are sent whole.
 *
 * The stream is read eagerly rather than paused on socket back-pressure: the SDK's producers ignore
 * the ReadableStream's desiredSize, so pausing would only move the backlog into a queue nobody
 * measures, while here it counts against the exchange's limit.
 */
export async function sendFetchResponse(
  exchange: Exchange,
  response: Response,
  extraHeaders: Readonly<Record<string, string>>,
  onStreamOpen?: () => void,
): Promise<void> {
  const headers: Record<string, string> = { ...extraHeaders };
  response.headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name)) headers[name] = value;
  });
  const body = response.body;
  const isEventStream = (headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream');
  if (!body || !isEventStream) {
    const payload = body ? new Uint8Array(await response.arrayBuffer()) : '';
    exchange.answer(response.status, headers, payload);
    return;
  }
  // uWS sends the head only with the first chunk, and the client waits for the head; a comment opens it.
  if (!exchange.open(response.status, headers, ': stream open\n\n')) {
    await body.cancel().catch(() => undefined);
    return;
  }
  onStreamOpen?.();
  const reader = body.getReader();
  exchange.onEnd((how) => {
    if (how !== 'ended') reader.cancel().catch(() => undefined);
  });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (!exchange.streaming) return;
      // Failures surface through onEnd and flushed(); the write promise is already marked handled.
      void exchange.write(value);
    }
    exchange.end();
  } catch {
    exchange.destroy();
  }
}
