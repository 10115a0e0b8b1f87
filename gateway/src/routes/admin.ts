import { CHANNEL_SPECS, ErrorCodes } from '@switchboard/sdk';
import { POOLS, poolChannel, poolEntryOf, type AgentView, type PoolName } from '@switchboard/runtime';
import { fail } from '../http/errors.js';
import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import {
  AgentList,
  BlockedChannelsBody,
  BlockedChannelsResponse,
  PoolAddBody,
  PoolAddResponse,
  PoolList,
  TokenResponse,
} from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import type { RouteDeps } from './deps.js';


/** Admin API: agents, blocked channels, the team token and pools. Orchestrator token only. */
export function adminRoutes(deps: RouteDeps): RouteDefinition[] {
  const { ports } = deps;
  const common = { tag: 'Admin', auth: 'orchestrator' as const };
  return [
    {
      ...common,
      method: 'GET',
      path: '/admin/api/agents',
      operationId: 'adminListAgents',
      summary: 'Every agent with its channels and blocked channels.',
      responses: { 200: { description: 'Agents.', schema: AgentList }, ...errorResponses(401, 403, 429) },
      async handler() {
        const agents = await ports.admin.agents();
        return json(200, {
          agents: agents.map(({ callbackUrl: _hidden, ...agent }: AgentView) => agent),
        });
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/agents/:agentId/blocked-channels',
      operationId: 'adminSetBlockedChannels',
      summary: 'Replace the channels an agent is blocked on: inbound is dropped, outbound refused.',
      body: BlockedChannelsBody,
      idempotent: true,
      responses: { 200: { description: 'Updated.', schema: BlockedChannelsResponse }, ...errorResponses(400, 401, 403, 404, 415, 429) },
      async handler({ params, body }: RouteContext<BlockedChannelsBody>) {
        return json(200, await ports.agents.call('setBlockedChannels', params.agentId!, { blockedChannels: body.blockedChannels }));
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/my-token',
      operationId: 'adminTeamToken',
      summary: 'The team token.',
      responses: { 200: { description: 'The team token.', schema: TokenResponse }, ...errorResponses(401, 403, 429) },
      async handler() {
        return json(200, { token: await ports.tokens.teamToken() }, { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/regenerate-token',
      operationId: 'adminRegenerateTeamToken',
      summary: 'Replace the team token; the old one stops working at once.',
      responses: { 200: { description: 'The new team token.', schema: TokenResponse }, ...errorResponses(401, 403, 429) },
      async handler() {
        return json(200, { token: await ports.tokens.regenerateTeamToken() }, { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/pools',
      operationId: 'adminListPools',
      summary: 'Pool sizes and entries, with the agent holding each.',
      responses: { 200: { description: 'Pools.', schema: PoolList }, ...errorResponses(401, 403, 429) },
      async handler() {
        return json(200, { pools: await ports.admin.pools.counts(), entries: await ports.admin.pools.list() });
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/pools/:pool',
      operationId: 'adminAddPoolEntries',
      summary:
        "Add addresses to a pool (E.164 numbers for phone and whatsapp, bot user ids for line, addresses for email); `telnyx:+1…` adds a number held at another provider than the channel's own, a sender for sends that fail over there.",
      body: PoolAddBody,
      idempotent: true,
      responses: { 200: { description: 'Added; existing entries are left as they are.', schema: PoolAddResponse }, ...errorResponses(400, 401, 403, 404, 415, 429) },
      async handler({ params, body }: RouteContext<PoolAddBody>) {
        const pool = params.pool as PoolName;
        if (!POOLS.includes(pool)) fail(ErrorCodes.NOT_FOUND, `No pool ${params.pool}; pools are ${POOLS.join(', ')}.`);
        const valid = CHANNEL_SPECS[poolChannel(pool)].address.pattern;
        const entries = body.addresses.map(poolEntryOf);
        const bad = entries.find((e) => !valid.test(e.address));
        if (bad !== undefined) fail(ErrorCodes.VALIDATION_FAILED, `${bad.address} is not a valid ${pool} pool address.`);
        let added = 0;
        for (const provider of new Set(entries.map((e) => e.provider))) {
          added += await ports.admin.pools.add(pool, entries.filter((e) => e.provider === provider).map((e) => e.address), undefined, provider);
        }
        return json(200, { ok: true, pool, added });
      },
    },
  ];
}
