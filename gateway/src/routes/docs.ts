import { buildOpenApi } from '../openapi.js';
import type { RouteDefinition } from '../http/types.js';
import { integrationGuide } from '../guide/integration-guide.js';
import type { RouteDeps } from './deps.js';

/** The OpenAPI document and the integration guide: public. `routes` is read when asked, so it lists every route. */
export function docsRoutes(deps: RouteDeps, routes: () => readonly RouteDefinition[]): RouteDefinition[] {
  let cached: string | undefined;
  return [
    {
      method: 'GET',
      path: '/api/v1/openapi.json',
      operationId: 'openapi',
      summary: 'This OpenAPI 3.1 document.',
      tag: 'Docs',
      auth: 'public',
      responses: { 200: { description: 'OpenAPI 3.1 document.', contentType: 'application/json' } },
      handler() {
        cached ??= JSON.stringify(buildOpenApi(routes(), { version: deps.version, serverUrl: deps.publicBaseUrl }));
        return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: cached };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/integration-guide',
      operationId: 'integrationGuide',
      summary: 'How to connect an agent over MCP and REST, with webhooks and callbacks.',
      tag: 'Docs',
      auth: 'public',
      responses: { 200: { description: 'Markdown guide.', contentType: 'text/markdown' } },
      handler() {
        return { status: 200, headers: { 'content-type': 'text/markdown; charset=utf-8' }, body: integrationGuide(deps.publicBaseUrl) };
      },
    },
  ];
}
