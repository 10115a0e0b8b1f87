import { randomBytes } from 'node:crypto';
import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import { errorResponses } from '../schemas/common.js';
import { DeprovisionBody, DeprovisionResponse, ProvisionBody, ProvisionResponse } from '../schemas/provisioning.js';
import { callbackUrlRules, checkCallbackUrl } from './callback-url.js';
import { resolveAgentId } from './agent-access.js';
import type { RouteDeps } from './deps.js';

/** Provisioning and deprovisioning of agents and their channels. */
export function provisioningRoutes(deps: RouteDeps): RouteDefinition[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/provision',
      operationId: 'provision',
      summary: 'Create an agent and give it channels from the pools; all or nothing.',
      tag: 'Provisioning',
      auth: 'team',
      body: ProvisionBody,
      idempotent: true,
      responses: { 201: { description: 'Provisioned.', schema: ProvisionResponse }, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      async handler({ body }: RouteContext<ProvisionBody>) {
        const agentId = body.agentId ?? `agent-${randomBytes(6).toString('hex')}`;
        if (body.callbackUrl !== undefined) checkCallbackUrl(body.callbackUrl, callbackUrlRules(deps.ports));
        const result = await deps.ports.agents.call('provision', agentId, body);
        return json(201, result);
      },
    },
    {
      method: 'POST',
      path: '/api/v1/deprovision',
      operationId: 'deprovision',
      summary: 'Delete an agent with its content (usage records stay), revoke its tokens and return its channels to their pools.',
      tag: 'Provisioning',
      auth: 'token',
      scope: 'configure',
      body: DeprovisionBody,
      idempotent: true,
      responses: { 200: { description: 'Deprovisioned.', schema: DeprovisionResponse }, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      async handler({ body, principal }: RouteContext<DeprovisionBody>) {
        const agentId = resolveAgentId(principal, body.agentId);
        return json(200, await deps.ports.agents.call('deprovision', agentId));
      },
    },
  ];
}
