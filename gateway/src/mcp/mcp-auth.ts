import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { AuthLockout, Principal } from '@switchboard/runtime';
import { fail } from '../http/errors.js';

/** Resolves a token to the principal it stands for, or undefined when it is unknown or revoked. */
export type Authenticate = (token: string) => Promise<Principal | undefined>;

/** The part of the runtime's AuthLockout the MCP routes use. */
export type Lockout = Pick<AuthLockout, 'retryAfter' | 'fail' | 'succeed'>;

const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Authentication for the MCP routes, with the same rules and error codes as the REST API: failed
 * tokens count towards the address's lockout, and a client token acts only for its own agent.
 */
export class McpAuth {
  constructor(
    private readonly authenticate: Authenticate,
    private readonly lockout: Lockout,
  ) {}

  /** The token of an `Authorization: Bearer` header, if there is one. */
  static bearer(headers: Readonly<Record<string, string>>): string | undefined {
    return /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
  }

  /** The principal for `token`, or a coded error: RATE_LIMITED (locked out), UNAUTHORIZED (missing or invalid). */
  async principal(token: string | undefined, address: string, missing: string): Promise<Principal> {
    const wait = this.lockout.retryAfter(address);
    if (wait > 0) {
      throw new SwitchboardError(ErrorCodes.RATE_LIMITED, `Too many failed authentications from this address; try again in ${wait} s.`, {
        retryAfter: wait,
      });
    }
    if (!token) fail(ErrorCodes.UNAUTHORIZED, missing);
    const principal = await this.authenticate(token);
    if (!principal) {
      this.lockout.fail(address);
      fail(ErrorCodes.UNAUTHORIZED, 'The token is not valid; it may have been revoked.');
    }
    this.lockout.succeed(address);
    return principal;
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
