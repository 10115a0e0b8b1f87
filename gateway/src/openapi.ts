import type { TSchema } from '@sinclair/typebox';
import type { RouteDefinition, RouteResponse } from './http/types.js';
import { scopeFor } from './oauth/scopes.js';

type JsonObject = Record<string, unknown>;

/** Plain JSON Schema from a TypeBox schema (its symbol keys dropped). */
function plain(schema: TSchema): JsonObject {
  return JSON.parse(JSON.stringify(schema)) as JsonObject;
}

/** Keywords whose value is data, not a schema: left as they are. */
const VALUES = new Set(['default', 'const', 'enum', 'example', 'examples']);

/**
 * A request schema as a caller sees it: a property with a default is not required of the caller.
 * The route's schema lists it as required because validation fills the default in first, so the
 * handler's type has it (`limit: number`); the document must not make the caller send it.
 */
function asRequest(schema: JsonObject): JsonObject {
  const properties = schema.properties as Record<string, JsonObject> | undefined;
  const required = schema.required as string[] | undefined;
  const out: JsonObject = { ...schema };
  for (const [key, value] of Object.entries(schema)) {
    if (VALUES.has(key)) continue;
    if (Array.isArray(value)) out[key] = value.map((item: unknown) => (item !== null && typeof item === 'object' ? asRequest(item as JsonObject) : item));
    else if (value !== null && typeof value === 'object') out[key] = key === 'properties' ? Object.fromEntries(Object.entries(value).map(([name, child]) => [name, asRequest(child as JsonObject)])) : asRequest(value as JsonObject);
  }
  if (properties && required) {
    const left = required.filter((name) => properties[name]?.default === undefined);
    if (left.length > 0) out.required = left;
    else delete out.required;
  }
  return out;
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
      const query = asRequest(plain(route.query)) as { properties?: Record<string, JsonObject>; required?: string[] };
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
    if (route.body) operation.requestBody = { required: true, content: { 'application/json': { schema: asRequest(plain(route.body)) } } };
    if (route.rawBody) {
      operation.requestBody = { required: true, content: Object.fromEntries(route.rawBody.map((t) => [t, { schema: { type: 'string' } }])) };
    }
    // A public route says so (`security: []`): what a route leaves out, a reader cannot tell from forgotten.
    // Provider webhooks check the provider's signature, which no OpenAPI security scheme describes.
    operation.security = route.auth === 'public' ? [] : route.path === '/sse' ? [{ queryToken: [] }, { bearer: [] }] : [{ bearer: [] }];
    // An OAuth access token may call the route with this scope (OpenAPI 3.1 lets a bearer scheme list it as a role).
    if (route.scope && route.auth !== 'public') (operation.security as JsonObject[]).push({ accessToken: [scopeFor(route.scope)] });
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard',
      version: info.version,
      description:
        'Communication channels for software agents: SMS, email, WhatsApp, LINE and voice, over REST and MCP. ' +
        'A JSON field or query parameter an operation does not list is refused with 400 BAD_REQUEST naming it and the allowed ones; provider webhooks accept what the provider sends. ' +
        'A date-time is RFC 3339 with Z or an offset ±hh:mm; one that names no real instant (a leap second, February 30, an offset of hours alone) is refused with 400 VALIDATION_FAILED.',
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
