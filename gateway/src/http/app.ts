import { createHash, randomUUID } from 'node:crypto';
import FindMyWay from 'find-my-way';
import { ErrorCodes } from '@switchboard/sdk';
import { contextFromHeaders, inSpan, keyInUse, SpanKind, tracing, type GatewayPorts, type IdempotencySlot, type Logger, type Principal } from '@switchboard/runtime';
import type { GatewayMetrics } from '../metrics.js';
import { errorResult, fail } from './errors.js';
import type { HttpRequest, HttpResult, RouteContext, RouteDefinition } from './types.js';
import { jsonTooDeep, MAX_JSON_DEPTH, valueTooDeep } from './json-depth.js';
import { Type } from '@sinclair/typebox';
import { compileBody, compileQuery, type Check } from './validation.js';
import { checkToken } from './token-check.js';
import { bearerAuthenticator, challenge, missingToken, refuseQueryToken, unknownToken, type Authenticate } from '../oauth/bearer-auth.js';
import { BearerRefusal } from '../oauth/bearer-refusal.js';
import type { ResourceServer } from '../oauth/resource-server.js';
import { grants, scopeOf } from '../oauth/scopes.js';

/** What the router found for a method and path. */
type RouteMatch = ReturnType<ReturnType<typeof FindMyWay>['find']>;

interface CompiledRoute {
  readonly definition: RouteDefinition;
  readonly checkBody: Check | undefined;
  readonly checkQuery: Check | undefined;
}

export interface GatewayAppOptions {
  /** Who a bearer token is, failed-authentication lockout, and stored idempotent answers. */
  ports: { tokens: Pick<GatewayPorts['tokens'], 'authenticate'>; lockout: GatewayPorts['lockout']; idempotency: GatewayPorts['idempotency'] };
  metrics: GatewayMetrics;
  logger: Logger;
  bodyLimits: { api: number; webhook: number };
  /** The admin UI's session cookie, for requests without a bearer token; throws when the cookie is bad. */
  sessions?: { authenticate(request: HttpRequest): Promise<Principal | undefined> };
  /** OAuth access tokens beside the static tokens, when configured. */
  oauth?: ResourceServer;
}

/** A handled request: the answer and the route pattern it matched (for logs and metrics). */
export interface HandledRequest extends HttpResult {
  readonly route: string;
}

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * A token-authorised `/api/v1` route that declares no query takes none: `?agentId=` on a POST or a
 * misspelt filter is refused as an unknown field, never ignored. Public routes (health, the OpenAPI
 * document, the guide) and everything outside `/api/v1` keep ignoring a query they do not read, for
 * probes, cache-busting and signed webhook URLs.
 */
const takesNoQuery = (definition: RouteDefinition) => definition.auth !== 'public' && definition.path.startsWith('/api/v1/');
const refuseQuery = compileQuery(Type.Object({}, { additionalProperties: false }));

const TOO_DEEP = `The input nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels; no route takes more than a few.`;

/**
 * The gateway's request pipeline, free of sockets: route → auth → body and query validation →
 * idempotency → handler → contract error body. The uWebSockets.js adapter feeds it; tests can too.
 */
export class GatewayApp {
  readonly #router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: false, caseSensitive: true });
  readonly #routes: RouteDefinition[] = [];
  readonly #inFlightKeys = new Map<string, Promise<HttpResult>>();
  readonly #authenticateToken: Authenticate;

  constructor(private readonly options: GatewayAppOptions) {
    const { tokens } = options.ports;
    this.#authenticateToken = bearerAuthenticator((token) => tokens.authenticate(token), options.oauth);
  }

  add(...definitions: RouteDefinition[]): this {
    for (const definition of definitions) {
      const compiled: CompiledRoute = {
        definition,
        checkBody: definition.body && compileBody(definition.body),
        checkQuery: definition.query && compileQuery(definition.query),
      };
      this.#router.on(definition.method, definition.path, () => undefined, compiled);
      this.#routes.push(definition);
    }
    return this;
  }

  /** Every registered route, for the OpenAPI document. */
  get routes(): readonly RouteDefinition[] {
    return this.#routes;
  }

  /** The largest body the route at this method and path accepts (the API limit when unrouted). */
  bodyLimit(method: string, path: string): number {
    const found = this.#router.find(method as 'GET', path);
    const route = found?.store as CompiledRoute | undefined;
    return route?.definition.bodyLimit === 'webhook' ? this.options.bodyLimits.webhook : this.options.bodyLimits.api;
  }

  /**
   * Runs a route's handler for an already-authenticated caller with input that is not an HTTP body
   * (an MCP tool call): the same auth rule, the same schema check, the same handler.
   */
  async invoke(method: string, path: string, principal: Principal, input: Record<string, unknown>, signal?: AbortSignal, headers: Record<string, string> = {}): Promise<HttpResult> {
    const found = this.#router.find(method as 'GET', path);
    const compiled = found?.store as CompiledRoute | undefined;
    if (!compiled) fail(ErrorCodes.NOT_FOUND, `No route ${method} ${path}.`);
    const { definition } = compiled;
    checkPermitted(definition, principal);
    if (valueTooDeep(input)) fail(ErrorCodes.BAD_REQUEST, TOO_DEEP);
    const copy = structuredClone(input);
    checkScope(definition, principal, copy);
    compiled.checkBody?.(copy, 'arguments');
    compiled.checkQuery?.(copy, 'arguments');
    // A route that reads neither a body nor a query takes no arguments.
    if (!compiled.checkBody && !compiled.checkQuery) refuseQuery(copy, 'arguments');
    const request: HttpRequest = { method, path, queryString: '', headers, rawBody: Buffer.alloc(0), remoteAddress: 'mcp', ...(signal ? { signal } : {}) };
    const context = { request, params: (found?.params ?? {}) as Record<string, string>, body: copy, query: copy, principal };
    if (!tracing.on) return definition.handler(context);
    // An MCP tool call is a request of its own: its `_meta.traceparent` (handed here as the header) is the parent.
    const parent = headers.traceparent ? contextFromHeaders({ traceparent: headers.traceparent }) : undefined;
    const attributes = { 'http.request.method': method, 'http.route': definition.path, 'switchboard.via': 'mcp' };
    return inSpan(`MCP ${method} ${definition.path}`, SpanKind.SERVER, attributes, async () => definition.handler(context), parent);
  }

  /** The route definition at a method and path, if any. */
  route(method: string, path: string): RouteDefinition | undefined {
    return (this.#router.find(method as 'GET', path)?.store as CompiledRoute | undefined)?.definition;
  }

  handle(request: HttpRequest): Promise<HandledRequest> {
    const found = this.#router.find(request.method as 'GET', request.path);
    const compiled = found?.store as CompiledRoute | undefined;
    const route = compiled?.definition.path ?? 'unmatched';
    if (!tracing.on) return this.#handle(request, found, compiled, route);
    // A span per request (REST, MCP, a provider's webhook); the caller's `traceparent` is its parent.
    const { traceparent, tracestate } = request.headers;
    const parent = traceparent ? contextFromHeaders(tracestate ? { traceparent, tracestate } : { traceparent }) : undefined;
    const attributes = { 'http.request.method': request.method, 'http.route': route, 'url.path': request.path };
    return inSpan(
      `${request.method} ${route}`,
      SpanKind.SERVER,
      attributes,
      async (span) => {
        const result = await this.#handle(request, found, compiled, route);
        span.setAttribute('http.response.status_code', result.status);
        return result;
      },
      parent,
    );
  }

  async #handle(request: HttpRequest, found: RouteMatch, compiled: CompiledRoute | undefined, route: string): Promise<HandledRequest> {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(request);
    const trace: RequestTrace = { agentId: found?.params?.agentId };
    let result: HttpResult;
    try {
      if (!compiled) this.#unrouted(request);
      result = await this.#run(compiled!, request, (found!.params ?? {}) as Record<string, string>, trace);
    } catch (err) {
      result = errorResult(challenge(err, request.path, this.options.oauth));
      // Coded failures were logged where they happened (a provider's, with its stack); an uncoded one is a bug here.
      if (result.body && (result.body as { code?: string }).code === ErrorCodes.INTERNAL) {
        this.options.logger.error({ err, reqId: requestId, route }, 'request failed');
      }
    }
    result.headers = { ...SECURITY_HEADERS, ...result.headers, 'x-request-id': requestId };
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    this.options.metrics.observeRequest(route, request.method, result.status, seconds);
    this.#log(request, route, requestId, trace, result, seconds);
    return { ...result, route };
  }

  /** One line per request: probes at debug, failures with their code, unmatched routes with their path. */
  #log(request: HttpRequest, route: string, reqId: string, trace: RequestTrace, result: HttpResult, seconds: number): void {
    const { logger } = this.options;
    const level = result.status >= 500 ? 'error' : result.status >= 400 ? 'warn' : PROBES.has(route) ? 'debug' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = { reqId, method: request.method, route, status: result.status, ms: Math.round(seconds * 1e4) / 10 };
    if (route === 'unmatched') fields.path = request.path;
    if (trace.agentId) fields.agentId = trace.agentId;
    if (result.status >= 400) fields.code = (result.body as { code?: string } | undefined)?.code;
    logger[level](fields, 'request');
  }

  async #run(compiled: CompiledRoute, request: HttpRequest, params: Record<string, string>, trace: RequestTrace): Promise<HttpResult> {
    const { definition } = compiled;
    if (request.path.startsWith('/api/v1/')) refuseQueryToken(request.queryString);
    const principal = definition.auth === 'public' ? undefined : await this.#authenticate(definition, request);
    if (principal?.kind === 'client') trace.agentId ??= principal.agentId;
    const query = Object.fromEntries(new URLSearchParams(request.queryString));
    const body = compiled.checkBody ? parseJsonBody(request) : checkRawBody(definition, request);
    // The scope before the input's shape: a token without the right is told what to ask for, not how to call.
    if (principal) checkScope(definition, principal, body);
    (compiled.checkQuery ?? (takesNoQuery(definition) ? refuseQuery : undefined))?.(query);
    compiled.checkBody?.(body);
    trace.agentId ??= agentIdOf(body) ?? agentIdOf(query);
    const context: RouteContext = { request, params, body, query, principal: principal as Principal };
    const key = request.headers['idempotency-key'];
    if (!definition.idempotent || !key || !principal) return definition.handler(context);
    return this.#idempotent(definition, principal, key, request, (idempotency) => definition.handler({ ...context, idempotency }));
  }

  #unrouted(request: HttpRequest): never {
    const methods = ['GET', 'POST', 'PUT', 'DELETE'].filter((m) => m !== request.method && this.#router.find(m as 'GET', request.path));
    if (methods.length > 0) fail(ErrorCodes.METHOD_NOT_ALLOWED, `${request.method} is not allowed here; use ${methods.join(' or ')}.`);
    fail(ErrorCodes.NOT_FOUND, `No route ${request.method} ${request.path}; see /api/v1/openapi.json.`);
  }

  async #authenticate(definition: RouteDefinition, request: HttpRequest): Promise<Principal> {
    const { lockout } = this.options.ports;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const token = match?.[1] ?? (definition.path === '/sse' ? new URLSearchParams(request.queryString).get('token') ?? '' : '');
    if (!token) {
      const session = await this.options.sessions?.authenticate(request);
      if (session) {
        checkPermitted(definition, session);
        return session;
      }
      throw missingToken('A bearer token is required: send Authorization: Bearer <token>.');
    }
    const principal = await checkToken(this.#authenticateToken, lockout, token, request.remoteAddress);
    if (!principal) throw unknownToken();
    checkPermitted(definition, principal);
    return principal;
  }

  async #idempotent(
    definition: RouteDefinition,
    principal: Principal,
    key: string,
    request: HttpRequest,
    run: (slot: IdempotencySlot) => Promise<HttpResult> | HttpResult,
  ): Promise<HttpResult> {
    if (key.length > 255) fail(ErrorCodes.VALIDATION_FAILED, 'Idempotency-Key must be at most 255 characters.');
    const { idempotency } = this.options.ports;
    const scope = `${principal.kind}:${principal.kind === 'client' ? principal.agentId : ''}:${definition.method} ${definition.path}`;
    const requestHash = createHash('sha256').update(request.path).update('\0').update(request.rawBody).digest('hex');
    const slot = `${scope}\0${key}`;
    const pending = this.#inFlightKeys.get(slot);
    if (pending) await pending.catch(() => undefined);
    const stored = await idempotency.find(scope, key);
    if (stored) {
      if (stored.requestHash !== requestHash) {
        fail(ErrorCodes.CONFLICT, 'This Idempotency-Key was used with a different request; use a new key for a new request.');
      }
      // Claimed by a send still in flight, here or on a node that died and whose send another finishes.
      if (stored.inFlight) throw keyInUse();
      return { status: stored.status, body: stored.body, headers: { 'idempotent-replayed': 'true' } };
    }
    const promise = Promise.resolve(run({ scope, key, requestHash }));
    this.#inFlightKeys.set(slot, promise);
    try {
      const result = await promise;
      if (result.status >= 200 && result.status < 300 && !definition.recordsIdempotency) {
        await idempotency.record(scope, key, { requestHash, status: result.status, body: result.body });
      }
      return result;
    } finally {
      this.#inFlightKeys.delete(slot);
    }
  }
}

/** What a request's log line learns while it runs. */
interface RequestTrace {
  agentId: string | undefined;
}

/** Routes that load balancers and scrapers call often; logged at debug. */
const PROBES = new Set(['/health', '/health/ready', '/api/v1/health', '/metrics']);

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is a sane token (so a trace can span a proxy), else a new one. */
function requestIdOf(request: HttpRequest): string {
  const given = request.headers['x-request-id'];
  return given !== undefined && REQUEST_ID.test(given) ? given : randomUUID();
}

function agentIdOf(input: unknown): string | undefined {
  const agentId = (input as { agentId?: unknown } | undefined)?.agentId;
  return typeof agentId === 'string' ? agentId : undefined;
}

/** Refuses a principal the route's auth level does not admit. */
function checkPermitted(definition: RouteDefinition, principal: Principal): void {
  const allowed =
    definition.auth === 'public' ||
    definition.auth === 'token' ||
    principal.kind === 'orchestrator' ||
    (definition.auth === 'team' && principal.kind === 'team');
  if (!allowed) fail(ErrorCodes.FORBIDDEN, `This route needs the ${definition.auth} token.`);
}

/**
 * Refuses an OAuth access token without the scope the route needs for this input (403
 * insufficient_scope, naming it); static tokens carry no scopes and are not limited here.
 */
function checkScope(definition: RouteDefinition, principal: Principal, body: unknown): void {
  if (principal.kind !== 'client' || principal.scopes === undefined) return;
  if (!definition.scope) fail(ErrorCodes.FORBIDDEN, 'OAuth access tokens may not call this route; use a static token.');
  const needed = scopeOf(definition.scope, body);
  if (!grants(principal.scopes, needed)) {
    throw new BearerRefusal(ErrorCodes.FORBIDDEN, `The access token lacks the scope ${needed}; ask the authorization server for it.`, {
      error: 'insufficient_scope',
      scope: needed,
    });
  }
}

function parseJsonBody(request: HttpRequest): unknown {
  const type = request.headers['content-type'] ?? '';
  if (request.rawBody.length === 0 && !type) fail(ErrorCodes.BAD_REQUEST, 'A JSON body is required.');
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    fail(ErrorCodes.UNSUPPORTED_MEDIA_TYPE, 'Send the body as application/json.');
  }
  if (jsonTooDeep(request.rawBody)) fail(ErrorCodes.BAD_REQUEST, TOO_DEEP);
  let body: unknown;
  try {
    body = JSON.parse(request.rawBody.toString('utf8'));
  } catch {
    fail(ErrorCodes.BAD_REQUEST, 'The body is not valid JSON.');
  }
  return body;
}

function checkRawBody(definition: RouteDefinition, request: HttpRequest): Buffer | undefined {
  if (!definition.rawBody) return undefined;
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (!definition.rawBody.includes(type)) {
    fail(ErrorCodes.UNSUPPORTED_MEDIA_TYPE, `Send the body as ${definition.rawBody.join(' or ')}.`);
  }
  return request.rawBody;
}
