import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { createLogger, type Principal } from '@switchboard/runtime';
import { GatewayApp, type GatewayAppOptions } from '../../src/http/app.js';
import { json, type RouteDefinition } from '../../src/http/types.js';
import { toolCatalog } from '../../src/mcp/tools.js';
import { GatewayMetrics } from '../../src/metrics.js';

const alice: Principal = { kind: 'client', agentId: 'alice' };
const team: Principal = { kind: 'team' };

function route(method: RouteDefinition['method'], path: string, summary: string, query?: RouteDefinition['query']): RouteDefinition {
  return {
    method,
    path,
    operationId: summary,
    summary,
    tag: 'test',
    auth: 'token',
    ...(query ? { query } : {}),
    responses: {},
    handler: ({ params, query: given }) => json(200, { params: { ...params }, query: given }),
  };
}

function app(): GatewayApp {
  const options = { ports: {}, metrics: new GatewayMetrics(), logger: createLogger({ level: 'silent', pretty: false }), bodyLimits: { api: 1 << 20, webhook: 1 << 20 } };
  return new GatewayApp(options as unknown as GatewayAppOptions).add(
    route('GET', '/api/v1/calls/:callId', 'One call.', Type.Object({ agentId: Type.Optional(Type.String()) }, { additionalProperties: false })),
  );
}

test('every session of an app shares one tool list, built once', () => {
  const gateway = app();
  const first = toolCatalog(gateway, alice, 'alice');
  const second = toolCatalog(gateway, team, undefined);
  assert.equal(first.tools, second.tools, 'a session built its own tool list');
  assert.deepEqual(first.tools.map((t) => t.name), ['comms_get_call', 'comms_ping']);
  assert.notEqual(toolCatalog(app(), alice, 'alice').tools, first.tools, 'another app has tools of its own');
});

test('a route added after the first session gives the next sessions its tool', () => {
  const gateway = app();
  const before = toolCatalog(gateway, alice, 'alice');
  gateway.add(route('GET', '/api/v1/usage', 'Usage.'));
  const after = toolCatalog(gateway, alice, 'alice');
  assert.deepEqual(after.tools.map((t) => t.name), ['comms_get_usage', 'comms_get_call', 'comms_ping']);
  assert.deepEqual(before.tools.map((t) => t.name), ['comms_get_call', 'comms_ping']);
});

test('the shared argument check still acts per session: each call runs as its own caller and agent', async () => {
  const gateway = app();
  for (const [principal, agentId] of [[alice, 'alice'], [team, 'bob']] as const) {
    const catalog = toolCatalog(gateway, principal, agentId);
    const unknown = await catalog.call('comms_get_call', { callId: 'CA1', colour: 'red' }, principal);
    assert.equal(unknown.isError, true);
    assert.equal((unknown.structuredContent as { code?: string }).code, 'BAD_REQUEST');
    assert.match(String((unknown.structuredContent as { error?: string }).error), /colour/);
    const found = await catalog.call('comms_get_call', { callId: 'CA1' }, principal);
    assert.equal(found.isError, undefined, JSON.stringify(found.structuredContent));
    assert.deepEqual(found.structuredContent, { params: { callId: 'CA1' }, query: { agentId } });
  }
});
