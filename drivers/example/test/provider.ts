// A tiny stand-in for the example SMS provider: just enough of its API for the driver's tests.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookRequest } from '@switchboard/sdk';
import { SIGNATURE_HEADER, signWebhook } from '../src/index.js';

export interface StoredMessage {
  id: string;
  from: string;
  to: string;
  body: string;
  idempotencyKey?: string;
}

export interface FakeProvider {
  url: string;
  apiKey: string;
  webhookSecret: string;
  messages: StoredMessage[];
  /** The next API request is answered with this status. */
  failNext(status: number): void;
  clearFaults(): void;
  /** A webhook request as the provider would post it, signed at `timestamp` (unix seconds). */
  webhook(payload: unknown, options?: { timestamp?: number; url?: string }): WebhookRequest;
  close(): Promise<void>;
}

export async function startFakeProvider(): Promise<FakeProvider> {
  const apiKey = `key_${randomUUID()}`;
  const webhookSecret = `whs_${randomUUID()}`;
  const messages: StoredMessage[] = [];
  const byKey = new Map<string, StoredMessage>();
  let fault: number | undefined;

  const server = createServer(async (req, res) => {
    const body = await readJson(req);
    if (fault !== undefined) {
      const status = fault;
      fault = undefined;
      return json(res, status, { error: `injected fault ${status}` });
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) return json(res, 401, { error: 'invalid API key' });
    if (req.method === 'GET' && req.url === '/v1/account') return json(res, 200, { id: 'acct_1', name: 'Test account' });
    if (req.method === 'POST' && req.url === '/v1/messages') {
      const { from, to, body: text } = (body ?? {}) as Record<string, unknown>;
      if (typeof to !== 'string' || typeof text !== 'string' || typeof from !== 'string') return json(res, 400, { error: 'from, to and body are required' });
      const key = req.headers['idempotency-key'];
      const seen = typeof key === 'string' ? byKey.get(key) : undefined;
      if (seen) return json(res, 200, { id: seen.id, status: 'queued', segments: 1, price: null });
      const message: StoredMessage = { id: `msg_${randomUUID()}`, from, to, body: text, ...(typeof key === 'string' ? { idempotencyKey: key } : {}) };
      messages.push(message);
      if (typeof key === 'string') byKey.set(key, message);
      return json(res, 201, { id: message.id, status: 'queued', segments: Math.max(1, Math.ceil(text.length / 160)), price: null });
    }
    return json(res, 404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    apiKey,
    webhookSecret,
    messages,
    failNext: (status) => void (fault = status),
    clearFaults: () => void (fault = undefined),
    webhook(payload, options = {}) {
      const rawBody = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));
      return {
        channel: 'sms',
        method: 'POST',
        url: options.url ?? 'https://gateway.test/webhooks/agent-1/sms',
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signWebhook(webhookSecret, rawBody, options.timestamp) },
        rawBody,
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}
