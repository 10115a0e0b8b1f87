import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import { BillingResponse, LimitsBody, LimitsResponse, MarkupBody, MarkupResponse, ReportQuery, UsageResponse } from '../schemas/billing.js';
import { errorResponses } from '../schemas/common.js';
import type { RouteDeps } from './deps.js';
import { resolveAgentId } from './agent-access.js';
import type { TSchema } from '@sinclair/typebox';
import type { Period, Principal } from '@switchboard/runtime';

/** The agent a report is for: a client's own; for team and orchestrator the one named, or all (undefined). */
function reportScope(principal: Principal, named: string | undefined): string | undefined {
  return named === undefined && principal.kind !== 'client' ? undefined : resolveAgentId(principal, named);
}

/** A report route: one agent's, or (team and orchestrator without agentId) all agents'. */
function report(
  path: string,
  operationId: string,
  summary: string,
  schema: TSchema,
  build: (agentId: string | undefined, period: Period) => Promise<unknown>,
): RouteDefinition {
  return {
    method: 'GET',
    path,
    operationId,
    summary,
    tag: 'Billing',
    auth: 'token',
    scope: 'read',
    query: ReportQuery,
    responses: { 200: { description: 'The report.', schema }, ...errorResponses(400, 401, 403, 429) },
    async handler({ query, principal }: RouteContext<unknown, ReportQuery>) {
      return json(200, await build(reportScope(principal, query.agentId), query.period ?? 'month'));
    },
  };
}

/** Usage and billing reports, and the admin routes for limits and markup. */
export function billingRoutes(deps: RouteDeps): RouteDefinition[] {
  const { ports } = deps;
  return [
    report('/api/v1/usage', 'getUsage', "An agent's usage with its limits and what remains; without agentId (team token) all agents summed and listed.", UsageResponse, (agentId, period) =>
      ports.admin.reports.usage(agentId, period),
    ),
    report('/api/v1/billing', 'getBilling', 'Provider cost, markup and billed cost by channel; without agentId (team token) all agents.', BillingResponse, (agentId, period) =>
      ports.admin.reports.billing(agentId, period),
    ),
    {
      method: 'GET',
      path: '/admin/api/agents/:agentId/limits',
      operationId: 'adminGetLimits',
      summary: "An agent's effective limits, its overrides and its markup.",
      tag: 'Admin',
      auth: 'orchestrator',
      responses: { 200: { description: 'Limits.', schema: LimitsResponse }, ...errorResponses(401, 403, 404, 429) },
      async handler({ params }: RouteContext) {
        return json(200, await ports.agents.call('getLimits', params.agentId!));
      },
    },
    {
      method: 'PUT',
      path: '/admin/api/agents/:agentId/limits',
      operationId: 'adminSetLimits',
      summary: "Replace an agent's limit overrides (null lifts a limit; an absent one uses the default) and markup.",
      tag: 'Admin',
      auth: 'orchestrator',
      body: LimitsBody,
      idempotent: true,
      responses: { 200: { description: 'Limits now in force.', schema: LimitsResponse }, ...errorResponses(400, 401, 403, 404, 415, 429) },
      async handler({ params, body }: RouteContext<LimitsBody>) {
        return json(200, await ports.agents.call('setLimits', params.agentId!, { overrides: body.limits, markupPercent: body.markupPercent ?? null }));
      },
    },
    {
      method: 'GET',
      path: '/admin/api/markup',
      operationId: 'adminGetMarkup',
      summary: 'The global markup on provider cost, in percent.',
      tag: 'Admin',
      auth: 'orchestrator',
      responses: { 200: { description: 'Markup.', schema: MarkupResponse }, ...errorResponses(401, 403, 429) },
      async handler() {
        return json(200, { markupPercent: await ports.admin.markupPercent() });
      },
    },
    {
      method: 'PUT',
      path: '/admin/api/markup',
      operationId: 'adminSetMarkup',
      summary: 'Set the global markup on provider cost, in percent (agents with their own keep it).',
      tag: 'Admin',
      auth: 'orchestrator',
      body: MarkupBody,
      idempotent: true,
      responses: { 200: { description: 'Markup.', schema: MarkupResponse }, ...errorResponses(400, 401, 403, 415, 429) },
      async handler({ body }: RouteContext<MarkupBody>) {
        await ports.admin.setMarkupPercent(body.markupPercent);
        return json(200, { markupPercent: body.markupPercent });
      },
    },
  ];
}
