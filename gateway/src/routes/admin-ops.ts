import { ErrorCodes } from '@switchboard/sdk';
import { agentView, type SqlValue } from '@switchboard/runtime';
import { usageTotals } from '../admin/dashboard.js';
import { fail } from '../http/errors.js';
import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import { AgentDetail, DeadLetterList, ListFilter, MessageLog } from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import { DeprovisionResponse } from '../schemas/provisioning.js';
import type { RouteDeps } from './deps.js';

const MESSAGE_COLUMNS =
  'id, agent_id AS "agentId", channel, direction, from_address AS "from", to_address AS "to", subject, body, external_id AS "externalId", status, segments, cost, error, created_at AS "createdAt"';
const LETTER_COLUMNS =
  'id, agent_id AS "agentId", channel, direction, reason, from_address AS "from", to_address AS "to", subject, body, error, attempts, created_at AS "createdAt", acknowledged_at AS "acknowledgedAt"';
const CALL_COLUMNS =
  'call_sid AS "callSid", agent_id AS "agentId", direction, mode, from_address AS "from", to_address AS "to", status, duration_seconds AS "durationSeconds", cost, created_at AS "createdAt"';

/** WHERE clause and parameters of a list filter; `status` means delivery status for messages, pending/acknowledged for dead letters. */
function where(filter: ListFilter, table: 'messages' | 'dead_letters'): { sql: string; params: SqlValue[] } {
  const clauses: string[] = [];
  const params: SqlValue[] = [];
  const add = (clause: string, value?: SqlValue) => {
    clauses.push(clause);
    if (value !== undefined) params.push(value);
  };
  if (filter.agentId) add('agent_id = ?', filter.agentId);
  if (filter.channel) add('channel = ?', filter.channel);
  if (filter.direction) add('direction = ?', filter.direction);
  if (filter.since) add('created_at >= ?', new Date(filter.since).toISOString());
  if (filter.status) {
    if (table === 'messages') add('status = ?', filter.status);
    else if (filter.status === 'pending') add('acknowledged_at IS NULL');
    else if (filter.status === 'acknowledged') add('acknowledged_at IS NOT NULL');
    else fail(ErrorCodes.VALIDATION_FAILED, 'status of a dead letter is pending or acknowledged.');
  }
  return { sql: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

/** Admin API for the dashboard's drill-downs: agent detail, the message log and dead letters. */
export function adminOpsRoutes(deps: RouteDeps): RouteDefinition[] {
  const { runtime } = deps;
  const { db } = runtime.store;
  const common = { tag: 'Admin', auth: 'orchestrator' as const };
  return [
    {
      ...common,
      method: 'GET',
      path: '/admin/api/agents/:agentId',
      operationId: 'adminAgentDetail',
      summary: 'One agent: channels, limits, usage, recent messages and calls, dead letters.',
      responses: { 200: { description: 'The agent.', schema: AgentDetail }, ...errorResponses(401, 403, 404, 429) },
      async handler({ params }: RouteContext) {
        const agentId = params.agentId!;
        const record = await runtime.store.agents.get(agentId);
        if (!record) fail(ErrorCodes.NOT_FOUND, `No agent ${agentId}.`);
        const view = agentView(record);
        const limits = (await runtime.agents.call('getLimits', agentId)).limits;
        return json(200, {
          agent: { ...view, callbackUrl: view.callbackUrl ?? null },
          limits: Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== null)),
          usage: await usageTotals(runtime, agentId),
          messages: await db.query(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE agent_id = ? ORDER BY created_at DESC LIMIT 50`, [agentId]),
          calls: await db.query(`SELECT ${CALL_COLUMNS} FROM calls WHERE agent_id = ? ORDER BY created_at DESC LIMIT 20`, [agentId]),
          deadLetters: await db.query(`SELECT ${LETTER_COLUMNS} FROM dead_letters WHERE agent_id = ? ORDER BY created_at DESC LIMIT 50`, [agentId]),
        }, { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'DELETE',
      path: '/admin/api/agents/:agentId',
      operationId: 'adminDeprovision',
      summary: 'Deprovision an agent: delete it, revoke its tokens, return its channels to their pools.',
      responses: { 200: { description: 'Deprovisioned.', schema: DeprovisionResponse }, ...errorResponses(401, 403, 404, 429) },
      async handler({ params }: RouteContext) {
        return json(200, await runtime.agents.call('deprovision', params.agentId!));
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/messages',
      operationId: 'adminMessageLog',
      summary: 'The message log, newest first, filtered by agent, channel, direction, status and time.',
      query: ListFilter,
      responses: { 200: { description: 'Messages.', schema: MessageLog }, ...errorResponses(400, 401, 403, 429) },
      async handler({ query }: RouteContext<unknown, ListFilter>) {
        const { sql, params } = where(query, 'messages');
        const rows = await db.query(`SELECT ${MESSAGE_COLUMNS} FROM messages ${sql} ORDER BY created_at DESC LIMIT ?`, [...params, query.limit ?? 100]);
        return json(200, { messages: rows }, { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/dead-letters',
      operationId: 'adminDeadLetters',
      summary: 'Dead letters, newest first, filtered by agent, channel, direction, status (pending or acknowledged) and time.',
      query: ListFilter,
      responses: { 200: { description: 'Dead letters.', schema: DeadLetterList }, ...errorResponses(400, 401, 403, 429) },
      async handler({ query }: RouteContext<unknown, ListFilter>) {
        const { sql, params } = where(query, 'dead_letters');
        const rows = await db.query(`SELECT ${LETTER_COLUMNS} FROM dead_letters ${sql} ORDER BY created_at DESC LIMIT ?`, [...params, query.limit ?? 100]);
        return json(200, { deadLetters: rows }, { 'cache-control': 'no-store' });
      },
    },
  ];
}
