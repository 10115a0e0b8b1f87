import type { SimChannel, WebhookTarget } from './types.js';

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
  if (!gatewayUrl) throw new MissingWebhookTargetError('No gatewayUrl: set simulator.gatewayUrl, or pass url');
  return `${gatewayUrl.replace(/\/+$/, '')}/webhooks/${encodeURIComponent(target.agentId)}/${path}`;
}

/** POSTs a webhook body exactly as given (the bytes that were signed) and reads the answer. */
export async function deliverWebhook(url: string, headers: Record<string, string>, body: string): Promise<WebhookAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
  });
  const text = await res.text();
  return { status: res.status, headers: Object.fromEntries(res.headers), body: text };
}
