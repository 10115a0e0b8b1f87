import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import type TwilioRequestClient from 'twilio/lib/base/RequestClient.js';
import type { Simulator } from '../src/index.js';

/**
 * A twilio client whose HTTP client sends every `https://*.twilio.com` request to the simulator,
 * the way Switchboard's twilio driver does.
 */
export function twilioClientFor(sim: Simulator, options: { accountSid?: string; authToken?: string; timeout?: number } = {}): twilio.Twilio {
  const base = sim.baseUrls.twilio;
  class SimulatorRequestClient extends twilio.RequestClient {
    override request<TData>(opts: TwilioRequestClient.RequestOptions<TData>) {
      return super.request({ ...opts, uri: opts.uri.replace(/^https:\/\/[^/]+\.twilio\.com/, base) });
    }
  }
  const httpClient = new SimulatorRequestClient(options.timeout ? { timeout: options.timeout } : {});
  return twilio(options.accountSid ?? sim.credentials.twilio.accountSid, options.authToken ?? sim.credentials.twilio.authToken, { httpClient });
}

/** A webhook as a local receiver got it: the exact URL, headers and raw body. */
export interface ReceivedWebhook {
  method: string;
  url: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Resolves once `count` webhooks arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A node:http server on 127.0.0.1:0 that records every request and answers with `answer`. */
export async function startReceiver(
  answer: (w: ReceivedWebhook) => { status: number; body?: string; contentType?: string } = () => ({ status: 200, body: '<Response/>', contentType: 'text/xml' }),
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { port } = server.address() as AddressInfo;
      const webhook: ReceivedWebhook = {
        method: req.method ?? '',
        url: `http://127.0.0.1:${port}${req.url ?? '/'}`,
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(webhook);
      const a = answer(webhook);
      res.writeHead(a.status, { 'content-type': a.contentType ?? 'text/plain' });
      res.end(a.body ?? '');
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    waitFor(count, timeoutMs = 3000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`Only ${received.length} of ${count} webhooks arrived in ${timeoutMs} ms`)), timeoutMs);
        const check = () => {
          if (received.length >= count) {
            clearTimeout(timer);
            resolve(received.slice(0, count));
          } else waiters.push(check);
        };
        check();
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Form body to the object twilio.validateRequest expects. */
export function formParams(body: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(body));
}

export const header = (h: IncomingHttpHeaders, name: string): string => {
  const v = h[name];
  return Array.isArray(v) ? v[0] ?? '' : v ?? '';
};
