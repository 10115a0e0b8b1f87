import { ErrorCodes } from '@switchboard/sdk';
import type { Principal } from '@switchboard/runtime';
import { fail } from '../http/errors.js';
import { checkToken, type Lockout } from '../http/token-check.js';
import { bearerAuthenticator, challenge, missingToken, refuseQueryToken, unknownToken, type Authenticate } from '../oauth/bearer-auth.js';
import type { ResourceServer } from '../oauth/resource-server.js';
import { BearerRefusal } from '../oauth/bearer-refusal.js';
import { grants } from '../oauth/scopes.js';

export type { Authenticate, Lockout };

/** The OAuth scope a tool call needs, if any. */
export type ToolScope = (name: string, args: Readonly<Record<string, unknown>>) => string | undefined;

const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Authentication for the MCP routes, with the same rules and error codes as the REST API: failed
 * tokens count towards the address's lockout, a client token acts only for its own agent, and
 * with OAuth on, JWT access tokens are checked as on REST and refusals carry their challenge.
 */
export class McpAuth {
  readonly #authenticate: Authenticate;

  constructor(
    authenticate: Authenticate,
    private readonly lockout: Lockout,
    private readonly oauth?: ResourceServer,
    private readonly toolScope?: ToolScope,
  ) {
    this.#authenticate = bearerAuthenticator(authenticate, oauth);
  }

  /** The token of an `Authorization: Bearer` header, if there is one. */
  static bearer(headers: Readonly<Record<string, string>>): string | undefined {
    return /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
  }

  /**
   * The principal for `token`, or a coded error: UNAUTHORIZED (missing or invalid), RATE_LIMITED
   * (invalid from a locked-out address). `path` picks the challenge's metadata URL.
   */
  async principal(token: string | undefined, address: string, missing: string, path = '/mcp'): Promise<Principal> {
    try {
      if (!token) throw missingToken(missing);
      const principal = await checkToken(this.#authenticate, this.lockout, token, address);
      if (!principal) throw unknownToken();
      return principal;
    } catch (err) {
      throw challenge(err, path, this.oauth);
    }
  }

  /** Refuses a token in the query string of a request to `path` (the deprecated `/sse` alone takes one). */
  refuseQueryToken(queryString: string, path: string): void {
    try {
      refuseQueryToken(queryString);
    } catch (err) {
      throw challenge(err, path, this.oauth);
    }
  }

  /**
   * Refuses, before the SDK runs it, a tool call whose scope the caller's access token lacks: HTTP 403
   * with `error="insufficient_scope"` and the scope, so the client can step up (MCP authorization).
   * Static tokens carry no scopes; the tool's own checks still run for every caller.
   */
  checkToolScopes(principal: Principal, body: unknown, path: string): void {
    if (principal.kind !== 'client' || principal.scopes === undefined || !this.toolScope) return;
    for (const message of Array.isArray(body) ? body : [body]) {
      const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
      if (method !== 'tools/call' || typeof params?.name !== 'string') continue;
      const args = typeof params.arguments === 'object' && params.arguments !== null ? (params.arguments as Record<string, unknown>) : {};
      const needed = this.toolScope(params.name, args);
      if (needed && !grants(principal.scopes, needed)) {
        const refusal = new BearerRefusal(ErrorCodes.FORBIDDEN, `The access token lacks the scope ${needed} for ${params.name}; ask the authorization server for it.`, {
          error: 'insufficient_scope',
          scope: needed,
        });
        throw challenge(refusal, path, this.oauth);
      }
    }
  }

  /**
   * The agent a session acts for: the requested one if the principal may act for it, else a client
   * token's own agent; undefined for team and orchestrator tokens that name none.
   */
  static agentFor(principal: Principal, requested: string | null | undefined): string | undefined {
    if (requested !== null && requested !== undefined && !AGENT_ID.test(requested)) {
      fail(ErrorCodes.VALIDATION_FAILED, 'agentId must match ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$.');
    }
    if (principal.kind !== 'client') return requested ?? undefined;
    if (requested && requested !== principal.agentId) fail(ErrorCodes.FORBIDDEN, 'A client token may only act for its own agent.');
    return principal.agentId;
  }

  /** True when both stand for the same caller: the same kind, and the same agent for client tokens. */
  static same(a: Principal, b: Principal): boolean {
    if (a.kind !== b.kind) return false;
    return a.kind !== 'client' || a.agentId === (b as typeof a).agentId;
  }
}
