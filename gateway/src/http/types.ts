import type { TSchema } from '@sinclair/typebox';
import type { IdempotencySlot, Principal } from '@switchboard/runtime';
import type { ScopeAction } from '../oauth/scopes.js';

/** A request as handlers see it: plain data, no sockets. Header names are lower case. */
export interface HttpRequest {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  /** Raw query string without the leading `?`. */
  readonly queryString: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly rawBody: Buffer;
  readonly remoteAddress: string;
  /**
   * Aborted when the client goes away before the answer, or when the gateway starts draining: a
   * handler that waits (a long poll) stops waiting and answers what it has.
   */
  readonly signal?: AbortSignal;
}

/** What a handler answers. A non-string, non-Buffer body is sent as JSON. */
export interface HttpResult {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Who may call a route. `token` is any valid bearer token; handlers narrow agent access. */
export type RouteAuth = 'public' | 'token' | 'team' | 'orchestrator';

/** What a handler gets: the request, its path parameters, the validated body and query, the caller. */
export interface RouteContext<Body = unknown, Query = Record<string, string>> {
  readonly request: HttpRequest;
  readonly params: Readonly<Record<string, string>>;
  readonly body: Body;
  readonly query: Query;
  /** Present on every route whose auth is not `public`. */
  readonly principal: Principal;
  /** On an idempotent route called with an Idempotency-Key: where its answer is stored (see `recordsIdempotency`). */
  readonly idempotency?: IdempotencySlot;
}

/** A documented response of a route. */
export interface RouteResponse {
  readonly description: string;
  readonly schema?: TSchema;
  readonly contentType?: string;
  /** Another body the same status may carry under its own content type (a blocked channel's empty answer). */
  readonly alternative?: { readonly contentType: string; readonly schema: TSchema };
}

/** One route: the single source for routing, validation, auth and the OpenAPI document. */
export interface RouteDefinition {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** find-my-way style, e.g. `/webhooks/:agentId/sms`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  /** Longer Markdown for the OpenAPI document, where the summary cannot say it all. */
  readonly description?: string;
  /** Still served, but clients should move off it (marked `deprecated` in the OpenAPI document). */
  readonly deprecated?: boolean;
  readonly tag: string;
  readonly auth: RouteAuth;
  /** JSON body schema; the body is parsed and validated before the handler runs. */
  readonly body?: TSchema;
  /** Content types accepted for a raw (unparsed) body, such as webhook form posts. */
  readonly rawBody?: readonly string[];
  readonly query?: TSchema;
  /** Largest body accepted: the API limit or the webhook limit. */
  readonly bodyLimit?: 'api' | 'webhook';
  /** Whether an Idempotency-Key header makes repeats return the first result. */
  readonly idempotent?: boolean;
  /**
   * The handler stores its 2xx answer in `context.idempotency` itself, in the commit that ends its
   * work, and the gateway does not write it again: one commit fewer, and a stored result is never
   * left without its replay.
   */
  readonly recordsIdempotency?: boolean;
  /**
   * What an OAuth access token needs the scope of to call this route (see oauth/scopes.ts); for
   * `send`, on the body's channel. Without it, access tokens may not call the route. Static tokens
   * are not limited by scopes.
   */
  readonly scope?: ScopeAction;
  readonly responses: Readonly<Record<number, RouteResponse>>;
  /** Hidden from the OpenAPI document (HTML pages, static assets). */
  readonly hidden?: boolean;
  handler(context: RouteContext<any, any>): Promise<HttpResult> | HttpResult;
}

/** A JSON answer. */
export function json(status: number, body: unknown, headers?: Record<string, string>): HttpResult {
  return headers ? { status, body, headers } : { status, body };
}
