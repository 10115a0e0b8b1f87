import type { Channel } from '@switchboard/sdk';
import type { WebhookAnswer } from '@switchboard/runtime';
import type { RouteContext, RouteDefinition } from '../http/types.js';
import { errorResponses } from '../schemas/common.js';
import type { RouteDeps } from './deps.js';

const MESSAGE_CHANNELS: readonly Channel[] = ['sms', 'whatsapp', 'email', 'line'];

/**
 * Provider webhooks for the message channels. The raw body goes to the agent's actor untouched, so
 * the driver checks the signature on the exact bytes; the answer is the provider's acknowledgement.
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
      rawBody: channel === 'sms' || channel === 'whatsapp' ? ['application/x-www-form-urlencoded'] : ['application/json'],
      responses: {
        200: { description: "Stored (or a retry of a stored event), or the channel is blocked; the provider's acknowledgement." },
        ...errorResponses(400, 403, 404, 413, 415),
      },
      async handler({ request, params }: RouteContext) {
        const url = `${deps.publicBaseUrl}${request.path}${request.queryString ? `?${request.queryString}` : ''}`;
        const answer = await deps.runtime.agents.call<WebhookAnswer>('inbound', params.agentId!, {
          channel,
          method: request.method,
          url,
          headers: request.headers,
          rawBodyBase64: request.rawBody.toString('base64'),
        });
        return { status: answer.status, headers: { 'content-type': answer.contentType }, body: answer.body };
      },
    }),
  );
}
