import type { Channel } from '@switchboard/sdk';
import type { RouteContext, RouteDefinition } from '../http/types.js';
import { ErrorBody, errorResponses } from '../schemas/common.js';
import { WebhookAcks } from '../schemas/webhooks.js';
import type { RouteDeps } from './deps.js';

const MESSAGE_CHANNELS = ['sms', 'whatsapp', 'email', 'line'] as const satisfies readonly Channel[];

/**
 * How long a webhook waits for the agent's actor. Providers give up on their own after 10–15 s and
 * retry (deduplicated by provider id), so a call lost with a dead runtime node answers 504 in time.
 */
const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Provider webhooks for the message channels. The driver checks the signature on the exact bytes
 * here, before the bus; the raw body then goes to the agent's actor untouched. The answer is the
 * provider's acknowledgement, or for a signed event that can never succeed a 4xx asking the provider
 * to stop retrying (a transient provider failure stays a 502, so the provider retries).
 */
export function webhookRoutes(deps: RouteDeps): RouteDefinition[] {
  return MESSAGE_CHANNELS.map(
    (channel): RouteDefinition => ({
      method: 'POST',
      path: `/webhooks/:agentId/${channel}`,
      operationId: `webhook_${channel}`,
      summary: `Inbound ${channel} messages and delivery receipts from the provider (signed).`,
      tag: 'Webhooks',
      auth: 'public',
      bodyLimit: 'webhook',
      // The chosen drivers say how their providers post; Twilio-style form bodies on sms and whatsapp, JSON elsewhere, when it does not.
      rawBody: [...(deps.ports.webhooks.contentTypes(channel) ?? (channel === 'sms' || channel === 'whatsapp' ? ['application/x-www-form-urlencoded'] : ['application/json']))],
      responses: {
        200: WebhookAcks[channel],
        ...errorResponses(403, 404, 413, 415, 502),
        400: { description: "Signed, but not the provider's shape (MALFORMED_PAYLOAD, e.g. an id not in the provider's format); nothing stored, `webhook-delivery: abort-message` set.", schema: ErrorBody },
        422: { description: 'Signed, but the provider refuses for good to give its content (PROVIDER_ERROR); nothing stored, `webhook-delivery: abort-message` set.', schema: ErrorBody },
      },
      async handler({ request, params }: RouteContext) {
        const url = `${deps.publicBaseUrl}${request.path}${request.queryString ? `?${request.queryString}` : ''}`;
        const { ports } = deps;
        // Checked here, before the bus: an unsigned body never reaches a runtime node.
        const provider = await ports.webhooks.verify(channel, { channel, method: request.method, url, headers: request.headers, rawBody: request.rawBody });
        const answer = await ports.agents.call('inbound', params.agentId!, {
          channel,
          provider,
          method: request.method,
          url,
          headers: request.headers,
          rawBodyBase64: request.rawBody.toString('base64'),
        }, { timeoutMs: WEBHOOK_TIMEOUT_MS });
        return { status: answer.status, headers: { ...answer.headers, 'content-type': answer.contentType }, body: answer.body };
      },
    }),
  );
}
