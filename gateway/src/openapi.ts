import type { TSchema } from '@sinclair/typebox';
import type { RouteDefinition, RouteResponse } from './http/types.js';
import { scopeFor } from './oauth/scopes.js';

type JsonObject = Record<string, unknown>;

/** Plain JSON Schema from a TypeBox schema (its symbol keys dropped). */
function plain(schema: TSchema): JsonObject {
  return JSON.parse(JSON.stringify(schema)) as JsonObject;
}

/** An OpenAPI media type object: the schema, and its first example where it has one (what renderers show). */
function media(schema: TSchema | undefined): JsonObject {
  if (!schema) return {};
  const json = plain(schema);
  const examples = json.examples as unknown[] | undefined;
  return { schema: json, ...(examples?.length ? { example: examples[0] } : {}) };
}

/** An OpenAPI response object for a documented response. */
function response(documented: RouteResponse): JsonObject {
  const content: JsonObject = {};
  if (documented.schema || documented.contentType) content[documented.contentType ?? 'application/json'] = media(documented.schema);
  if (documented.alternative) content[documented.alternative.contentType] = media(documented.alternative.schema);
  return { description: documented.description, ...(Object.keys(content).length > 0 ? { content } : {}) };
}

/**
 * The OpenAPI 3.1 document, generated from the very route definitions whose schemas validate
 * requests, so the two cannot drift.
 */
export function buildOpenApi(routes: readonly RouteDefinition[], info: { version: string; serverUrl: string }): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    if (route.hidden) continue;
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const parameters: JsonObject[] = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    if (route.query) {
      const query = plain(route.query) as { properties?: Record<string, JsonObject>; required?: string[] };
      for (const [name, schema] of Object.entries(query.properties ?? {})) {
        parameters.push({ name, in: 'query', required: query.required?.includes(name) ?? false, schema });
      }
    }
    if (route.idempotent) {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'A repeat with the same key returns the first result and does nothing again; while the first request is still running, 409 CONFLICT with Retry-After.',
        schema: { type: 'string', maxLength: 255 },
      });
    }
    const operation: JsonObject = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      ...(route.deprecated ? { deprecated: true } : {}),
      tags: [route.tag],
      responses: Object.fromEntries(Object.entries(route.responses).map(([status, documented]) => [status, response(documented)])),
    };
    if (parameters.length > 0) operation.parameters = parameters;
    if (route.body) operation.requestBody = { required: true, content: { 'application/json': { schema: plain(route.body) } } };
    if (route.rawBody) {
      operation.requestBody = { required: true, content: Object.fromEntries(route.rawBody.map((t) => [t, { schema: { type: 'string' } }])) };
    }
    if (route.auth !== 'public') operation.security = route.path === '/sse' ? [{ queryToken: [] }, { bearer: [] }] : [{ bearer: [] }];
    // An OAuth access token may call the route with this scope (OpenAPI 3.1 lets a bearer scheme list it as a role).
    if (route.scope) (operation.security as JsonObject[]).push({ accessToken: [scopeFor(route.scope)] });
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard',
      version: info.version,
      description:
        'Communication channels for software agents: SMS, email, WhatsApp, LINE and voice, over REST and MCP. ' +
        'A JSON field or query parameter an operation does not list is refused with 400 BAD_REQUEST naming it and the allowed ones; provider webhooks accept what the provider sends.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Orchestrator, team or client token.' },
        queryToken: { type: 'apiKey', in: 'query', name: 'token', description: 'Token on the SSE URL (the deprecated HTTP+SSE transport only).' },
        accessToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'OAuth 2.1 access token (JWT) from an authorization server named in /.well-known/oauth-protected-resource, when OAuth is configured: ' +
            "audience this server's resource URI (RFC 8707), an agent claim (switchboard_agent by default), and the scope listed for the operation " +
            '(switchboard:send also as switchboard:send:<channel>). A missing scope is answered 403 with WWW-Authenticate: Bearer error="insufficient_scope", scope="…". Never in a query string.',
        },
      },
    },
  };
}
