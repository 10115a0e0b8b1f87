import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import { errorResponses } from '../schemas/common.js';
import {
  CheckConsentQuery,
  CheckConsentResponse,
  DoNotContactBody,
  DoNotContactResponse,
  RecordConsentBody,
  RecordConsentResponse,
  RevokeConsentBody,
  RevokeConsentResponse,
} from '../schemas/consents.js';
import { resolveAgentId } from './agent-access.js';
import type { RouteDeps } from './deps.js';

/**
 * What an agent records of the people it contacts: consents (record, revoke, check) and its own
 * do-not-contact entries. Revoking and opting a person out need only `read`: honouring a person's
 * wish only narrows what the agent may do, and must never wait for a scope.
 */
export function consentRoutes(deps: RouteDeps): RouteDefinition[] {
  const { ports } = deps;
  const common = { tag: 'Compliance', auth: 'token' as const };
  return [
    {
      ...common,
      scope: 'configure',
      method: 'POST',
      path: '/api/v1/consents',
      operationId: 'recordConsent',
      summary: "Record a person's consent (transactional, marketing or automated-call) with how it was given and what shows it; recording again renews it.",
      body: RecordConsentBody,
      idempotent: true,
      responses: { 200: { description: 'Recorded.', schema: RecordConsentResponse }, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      async handler({ body, principal }: RouteContext<RecordConsentBody>) {
        const { agentId, ...consent } = body;
        return json(200, await ports.agents.call('recordConsent', resolveAgentId(principal, agentId), consent));
      },
    },
    {
      ...common,
      scope: 'read',
      method: 'POST',
      path: '/api/v1/consents/revoke',
      operationId: 'revokeConsent',
      summary: "Revoke a person's consent of one kind, or every kind: the agent's own record and the operator's. The record stays, with when it was revoked.",
      body: RevokeConsentBody,
      idempotent: true,
      responses: { 200: { description: 'Revoked (revoked lists the kinds that were live).', schema: RevokeConsentResponse }, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      async handler({ body, principal }: RouteContext<RevokeConsentBody>) {
        const { agentId, ...revocation } = body;
        return json(200, await ports.agents.call('revokeConsent', resolveAgentId(principal, agentId), revocation));
      },
    },
    {
      ...common,
      scope: 'read',
      method: 'GET',
      path: '/api/v1/consents',
      operationId: 'checkConsent',
      summary: "Whether this agent has a person's consent, per kind, which kinds it must have, and every record of them.",
      query: CheckConsentQuery,
      responses: { 200: { description: 'The consents.', schema: CheckConsentResponse }, ...errorResponses(400, 401, 403, 404, 429) },
      async handler({ query, principal }: RouteContext<unknown, CheckConsentQuery>) {
        const { agentId, ...asked } = query;
        return json(200, await ports.agents.call('checkConsent', resolveAgentId(principal, agentId), asked), { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      scope: 'read',
      method: 'POST',
      path: '/api/v1/do-not-contact',
      operationId: 'doNotContact',
      summary:
        "Put a person on this agent's own do-not-contact list (they asked not to be contacted again): every later message or call of this agent to them, on any channel, is refused with RECIPIENT_OPTED_OUT.",
      body: DoNotContactBody,
      idempotent: true,
      responses: { 200: { description: 'Listed.', schema: DoNotContactResponse }, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      async handler({ body, principal }: RouteContext<DoNotContactBody>) {
        const { agentId, ...entry } = body;
        return json(200, await ports.agents.call('doNotContact', resolveAgentId(principal, agentId), entry));
      },
    },
  ];
}
