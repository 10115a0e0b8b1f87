import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Channel } from '../channels.js';
import type { WebhookRequest } from '../driver.js';

/** One request a provider (or a simulator) posted to the receiver, kept byte for byte. */
export interface ReceivedWebhook {
  readonly method: string;
  /** Path and query string as received, e.g. `/sms?x=1`. */
  readonly path: string;
  /** The absolute URL the sender called: what a provider signs. */
  readonly url: string;
  /** Header names in lower case; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly rawBody: Buffer;
}

/** A loopback HTTP server standing in for the gateway's webhook routes in driver tests. */
export interface WebhookReceiver {
  /** Base URL, e.g. `http://127.0.0.1:53211`; append a path of your choice. */
  readonly url: string;
  /** Every request received so far, oldest first. */
  readonly received: readonly ReceivedWebhook[];
  /**
   * Resolves with the oldest request not yet taken whose path starts with `path` (any path when omitted),
   * as the WebhookRequest the gateway would hand the driver. Waits up to `timeoutMs` (default 5000) for one.
   */
  next(channel: Channel, path?: string, timeoutMs?: number): Promise<WebhookRequest>;
  /** Runs `send` with `${url}${path}` (which makes a provider post there) and returns the request it caused. */
  capture(channel: Channel, path: string, send: (url: string) => unknown): Promise<WebhookRequest>;
  close(): Promise<void>;
}

/** Options for {@link startWebhookReceiver}. */
export interface WebhookReceiverOptions {
  host?: string;
  port?: number;
  /** Status the receiver answers with (default 200). */
  status?: number;
}

/** Starts a {@link WebhookReceiver} on loopback, port 0 unless told otherwise. */
export async function startWebhookReceiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const host = options.host ?? '127.0.0.1';
  const received: ReceivedWebhook[] = [];
  const pending: ReceivedWebhook[] = [];
  const waiters = new Set<() => void>();
  let base = '';

  const server = createServer((req, res) => {
    readBody(req).then(
      (rawBody) => {
        const path = req.url ?? '/';
        const entry: ReceivedWebhook = { method: req.method ?? 'POST', path, url: `${base}${path}`, headers: flatten(req), rawBody };
        received.push(entry);
        pending.push(entry);
        for (const wake of waiters) wake();
        res.writeHead(options.status ?? 200, { 'content-length': '0' }).end();
      },
      () => res.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  function takeMatching(path: string | undefined): ReceivedWebhook | undefined {
    const index = pending.findIndex((r) => path === undefined || r.path.startsWith(path));
    return index === -1 ? undefined : pending.splice(index, 1)[0];
  }

  async function next(channel: Channel, path?: string, timeoutMs = 5000): Promise<WebhookRequest> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = takeMatching(path);
      if (hit) return { channel, method: hit.method, url: hit.url, headers: hit.headers, rawBody: hit.rawBody };
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`No webhook arrived at ${path ?? 'the receiver'} within ${timeoutMs} ms.`);
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        waiters.add(wake);
      });
    }
  }

  return {
    url: base,
    received,
    next,
    async capture(channel, path, send) {
      await send(`${base}${path}`);
      return next(channel, path);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function flatten(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
