import { Type } from '@sinclair/typebox';
import { json, type RouteDefinition } from '../http/types.js';
import type { RouteDeps } from './deps.js';

const Liveness = Type.Object({
  status: Type.Literal('ok'),
  uptime: Type.Number({ description: 'Seconds since start, fractional.' }),
  version: Type.String(),
  environment: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')]),
  demoMode: Type.Boolean(),
});

const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
  checks: Type.Record(Type.String(), Type.String({ description: '"ok", "disabled" or "error: <reason>".' })),
});

/** Liveness, readiness and Prometheus metrics: public, no token. */
export function healthRoutes(deps: RouteDeps): RouteDefinition[] {
  const liveness = () =>
    json(200, {
      status: 'ok',
      uptime: (Date.now() - deps.startedAt) / 1000,
      version: deps.version,
      environment: deps.ports.settings.NODE_ENV,
      demoMode: deps.ports.demoMode,
    });
  return [
    {
      method: 'GET',
      path: '/health',
      operationId: 'health',
      summary: 'Liveness: the process is up.',
      tag: 'Health',
      auth: 'public',
      responses: { 200: { description: 'Alive.', schema: Liveness } },
      handler: liveness,
    },
    {
      method: 'GET',
      path: '/api/v1/health',
      operationId: 'apiHealth',
      summary: 'Liveness, under the API prefix.',
      tag: 'Health',
      auth: 'public',
      responses: { 200: { description: 'Alive.', schema: Liveness } },
      handler: liveness,
    },
    {
      method: 'GET',
      path: '/health/ready',
      operationId: 'readiness',
      summary: 'Readiness: real probes of the database and every configured provider, cached for a few seconds.',
      tag: 'Health',
      auth: 'public',
      responses: {
        200: { description: 'Every check passes.', schema: Readiness },
        503: { description: 'A check failed.', schema: Readiness },
      },
      async handler() {
        const { ready, checks } = await deps.ports.readiness.run();
        return json(ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks });
      },
    },
    {
      method: 'GET',
      path: '/metrics',
      operationId: 'metrics',
      summary: 'Prometheus text exposition.',
      tag: 'Health',
      auth: 'public',
      responses: { 200: { description: 'Metrics.', contentType: 'text/plain; version=0.0.4' } },
      async handler() {
        const { registry } = deps.metrics;
        return { status: 200, headers: { 'content-type': registry.contentType }, body: await registry.metrics() };
      },
    },
  ];
}
