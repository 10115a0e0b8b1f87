import { Type } from '@sinclair/typebox';
import { CHANNEL_SPECS, ErrorCodes, MESSAGE_CHANNELS, type Channel } from '@switchboard/sdk';
import { fail } from '../http/errors.js';
import type { RouteContext, RouteDefinition } from '../http/types.js';
import { ErrorBody, errorResponses } from '../schemas/common.js';
import { WebhookAcks } from '../schemas/webhooks.js';
import type { RouteDeps } from './deps.js';

/**
 * Provider webhooks for the message channels. The driver checks the signature on the exact bytes
 * here, and the messages are stored here, before anything crosses the bus (receipts go on to the
 * agent's actor). The answer is the provider's acknowledgement, or for a signed event that can never
 * succeed a 4xx asking the provider to stop retrying (a transient provider failure stays a 502, so the
 * provider retries).
 */
export function webhookRoutes(deps: RouteDeps): RouteDefinition[] {
  return [...MESSAGE_CHANNELS.map((channel) => handshakeRoute(deps, channel)), ...MESSAGE_CHANNELS.map(
    (channel): RouteDefinition => ({
      method: 'POST',
      path: `/webhooks/:agentId/${CHANNEL_SPECS[channel].webhook.path}`,
      operationId: `webhook_${channel}`,
      summary: `Inbound ${channel} messages and delivery receipts from the provider (signed).`,
      tag: 'Webhooks',
      auth: 'public',
      bodyLimit: 'webhook',
      // The chosen drivers say how their providers post; the channel's own default (its table entry) when none does.
      rawBody: [...(deps.ports.webhooks.contentTypes(channel) ?? CHANNEL_SPECS[channel].webhook.contentTypes)],
      responses: {
        200: WebhookAcks[channel],
        ...errorResponses(403, 404, 413, 415, 502),
        400: { description: "Signed, but not the provider's shape (MALFORMED_PAYLOAD, e.g. an id not in the provider's format); nothing stored, `webhook-delivery: abort-message` set.", schema: ErrorBody },
        422: { description: 'Signed, but the provider refuses for good to give its content (PROVIDER_ERROR); nothing stored, `webhook-delivery: abort-message` set.', schema: ErrorBody },
      },
      async handler({ request, params }: RouteContext) {
        const url = `${deps.publicBaseUrl}${request.path}${request.queryString ? `?${request.queryString}` : ''}`;
        // Checked here, before the store and the bus: an unsigned body is neither stored nor passed on.
        const answer = await deps.ports.webhooks.receive(channel, params.agentId!, { channel, method: request.method, url, headers: request.headers, rawBody: request.rawBody });
        return { status: answer.status, headers: { ...answer.headers, 'content-type': answer.contentType }, body: answer.body };
      },
    }),
  )];
}

/** The query of a subscription check: Meta's three `hub.*` parameters; other providers' are passed on as they come. */
const HandshakeQuery = Type.Object(
  { 'hub.mode': Type.Optional(Type.String()), 'hub.verify_token': Type.Optional(Type.String()), 'hub.challenge': Type.Optional(Type.String()) },
  { additionalProperties: Type.String() },
);

/** The GET a provider sends to check a webhook URL before posting there, answered by the channel's driver. */
function handshakeRoute(deps: RouteDeps, channel: Channel): RouteDefinition {
  return {
    method: 'GET',
    path: `/webhooks/:agentId/${CHANNEL_SPECS[channel].webhook.path}`,
    operationId: `webhook_${channel}_handshake`,
    summary: `The provider's check of the ${channel} webhook URL (Meta's verification handshake: \`hub.mode=subscribe\`, \`hub.verify_token\`, \`hub.challenge\`).`,
    description: "Answered by the channel's driver: the challenge as text/plain when the verify token is the configured one, 403 when it is not, 404 when no provider of the channel checks its URL this way.",
    tag: 'Webhooks',
    auth: 'public',
    query: HandshakeQuery,
    responses: { 200: { description: 'The challenge, echoed.', contentType: 'text/plain', schema: Type.String() }, ...errorResponses(403, 404) },
    handler({ request }: RouteContext) {
      const url = `${deps.publicBaseUrl}${request.path}${request.queryString ? `?${request.queryString}` : ''}`;
      const answer = deps.ports.webhooks.handshake(channel, { channel, method: 'GET', url, headers: request.headers, rawBody: request.rawBody });
      if (!answer) fail(ErrorCodes.NOT_FOUND, `No ${channel} provider checks its webhook URL with a GET.`);
      if (answer.status === 403) fail(ErrorCodes.FORBIDDEN, 'The verify token is not the one configured for this provider.');
      return { status: answer.status, headers: { 'content-type': answer.contentType, 'cache-control': 'no-store' }, body: answer.body };
    },
  };
}
