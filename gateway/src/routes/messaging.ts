import { ErrorCodes } from '@switchboard/sdk';
import { fail } from '../http/errors.js';
import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import { contactRefusals, ErrorBody, errorResponses } from '../schemas/common.js';
import {
  AgentQuery,
  CallbackUrlBody,
  CallbackUrlResponse,
  ChannelStatusResponse,
  SendMessageBody,
  SendMessageResponse,
  WaitingMessagesQuery,
  WaitingMessagesResponse,
} from '../schemas/messaging.js';
import { resolveAgentId } from './agent-access.js';
import { callbackUrlRules, checkCallbackUrl } from './callback-url.js';
import type { RouteDeps } from './deps.js';

/** A send's 503: the agent moved to another node mid-send, or its do-not-contact entry changed while it was stored. */
const SEND_UNAVAILABLE = {
  503: { description: 'Not sent, for a moment (UNAVAILABLE): the agent moved to another node, or its do-not-contact entry changed while the message was stored; retry.', schema: ErrorBody },
};

/** Sending, callback URL, waiting messages and channel status. */
export function messagingRoutes(deps: RouteDeps): RouteDefinition[] {
  const { ports } = deps;
  const common = { tag: 'Messaging', auth: 'token' as const };
  return [
    {
      ...common,
      method: 'POST',
      path: '/api/v1/send-message',
      operationId: 'sendMessage',
      summary: "Send an SMS, WhatsApp, email or LINE message from the agent's provisioned address; on WhatsApp outside the 24-hour window, an approved `template` instead of `body`.",
      body: SendMessageBody,
      scope: 'send',
      idempotent: true,
      recordsIdempotency: true,
      responses: { 200: { description: 'The provider took the message.', schema: SendMessageResponse }, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 502), ...SEND_UNAVAILABLE, ...contactRefusals() },
      async handler({ body, principal, idempotency }: RouteContext<SendMessageBody>) {
        const agentId = resolveAgentId(principal, body.agentId);
        if (body.conversationId === undefined ? body.to === undefined || body.channel === undefined : body.to !== undefined) {
          fail(ErrorCodes.VALIDATION_FAILED, 'Name `channel` and `to`, or a `conversationId` to reply in (with an optional `channel`), not both.');
        }
        if ((body.body === undefined) === (body.template === undefined)) fail(ErrorCodes.VALIDATION_FAILED, 'Give the message as `body` or, on WhatsApp, as a `template`: one of them, not both.');
        if (body.template && body.template.contentSid === undefined && body.template.name === undefined) fail(ErrorCodes.VALIDATION_FAILED, 'A template names its `contentSid` or its `name`.');
        const { agentId: _named, ...request } = body;
        return json(200, await ports.agents.call('send', agentId, idempotency ? { ...request, idempotency } : request));
      },
    },
    {
      ...common,
      method: 'PUT',
      path: '/api/v1/callback-url',
      operationId: 'setCallbackUrl',
      summary: 'Set (or clear with null) where inbound messages go when the agent has no live session.',
      body: CallbackUrlBody,
      scope: 'configure',
      idempotent: true,
      responses: { 200: { description: 'Set; callbacks are signed with signingSecret.', schema: CallbackUrlResponse }, ...errorResponses(400, 401, 403, 404, 415, 429) },
      async handler({ body, principal }: RouteContext<CallbackUrlBody>) {
        const agentId = resolveAgentId(principal, body.agentId);
        if (body.callbackUrl !== null) checkCallbackUrl(body.callbackUrl, callbackUrlRules(ports));
        return json(200, await ports.agents.call('setCallbackUrl', agentId, { callbackUrl: body.callbackUrl }));
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/api/v1/waiting-messages',
      operationId: 'getWaitingMessages',
      summary: 'Dead letters for the agent, oldest first; returned once — the same transaction acknowledges them.',
      query: WaitingMessagesQuery,
      scope: 'read',
      responses: { 200: { description: 'Messages, now acknowledged.', schema: WaitingMessagesResponse }, ...errorResponses(400, 401, 403, 404, 429) },
      async handler({ query, principal }: RouteContext<unknown, WaitingMessagesQuery>) {
        const agentId = resolveAgentId(principal, query.agentId);
        return json(200, await ports.agents.call('takeWaiting', agentId, { channel: query.channel, limit: query.limit }), { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/api/v1/channel-status',
      operationId: 'getChannelStatus',
      summary: "Each channel's address, status, provider and message count.",
      query: AgentQuery,
      scope: 'read',
      responses: { 200: { description: 'Channel status.', schema: ChannelStatusResponse }, ...errorResponses(400, 401, 403, 404, 429) },
      async handler({ query, principal }: RouteContext<unknown, AgentQuery>) {
        return json(200, await ports.agents.call('channelStatus', resolveAgentId(principal, query.agentId)));
      },
    },
  ];
}
