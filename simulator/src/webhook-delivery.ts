import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { WebhookTarget } from './inbound-types.js';
import type { SimChannel } from './types.js';

/** Switchboard's answer to a webhook. */
export interface WebhookAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const WEBHOOK_TIMEOUT_MS = 15_000;

/** Thrown when an inbound webhook has nowhere to go (no url, or no agentId/gatewayUrl). */
export class MissingWebhookTargetError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = 'MissingWebhookTargetError';
  }
}

/** `target.url` when given, else `${gatewayUrl}/webhooks/${agentId}/${path}`. */
export function webhookUrl(gatewayUrl: string | undefined, target: WebhookTarget, path: SimChannel | string): string {
  if (target.url) return target.url;
  if (!target.agentId) throw new MissingWebhookTargetError('An inbound webhook needs agentId (with gatewayUrl set) or url');
  if (!gatewayUrl) throw new MissingWebhookTargetError('No gateway URL to post to: start switchboard-simulator with --gateway-url <Switchboard PUBLIC_BASE_URL> (or set simulator.gatewayUrl), or pass url');
  return `${gatewayUrl.replace(/\/+$/, '')}/webhooks/${encodeURIComponent(target.agentId)}/${path}`;
}

/**
 * POSTs a webhook body exactly as given (the bytes that were signed) and reads the answer, over
 * keep-alive `node:http`/`node:https` connections: `fetch` cost the simulator ~1 ms of CPU per
 * webhook (streams, abort signals), which under load took CPU from the server it posts to. Redirects
 * are not followed; the whole exchange times out after 15 s.
 */
export function deliverWebhook(url: string, headers: Record<string, string>, body: string): Promise<WebhookAnswer> {
  const target = new URL(url);
  const https = target.protocol === 'https:';
  const payload = Buffer.from(body, 'utf8');
  return new Promise<WebhookAnswer>((resolve, reject) => {
    const req = (https ? httpsRequest : httpRequest)(
      target,
      { method: 'POST', headers: { ...headers, 'content-length': String(payload.length) }, agent: https ? HTTPS_AGENT : HTTP_AGENT },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: flatHeaders(res.headers), body: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`The webhook to ${url} got no answer within ${WEBHOOK_TIMEOUT_MS} ms.`)), WEBHOOK_TIMEOUT_MS);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(payload);
  });
}

const HTTP_AGENT = new HttpAgent({ keepAlive: true });
const HTTPS_AGENT = new HttpsAgent({ keepAlive: true });

/** Response headers as `fetch` gives them: lower-case names, repeated values joined. */
function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
