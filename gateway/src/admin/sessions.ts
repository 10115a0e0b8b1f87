import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ErrorCodes } from '@switchboard/sdk';
import type { GatewayPorts, Principal } from '@switchboard/runtime';
import { fail } from '../http/errors.js';
import { checkToken } from '../http/token-check.js';
import type { HttpRequest } from '../http/types.js';

export const SESSION_COOKIE = 'sb_session';
export const CSRF_HEADER = 'x-csrf-token';
/** How long a sign-in lasts. */
export const SESSION_SECONDS = 8 * 3600;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Nonces of signed-out sessions until they expire; per process, so they outlive a deploy. */
const REVOKED = new Map<string, number>();

interface SessionData {
  /** Expiry, epoch seconds. */
  exp: number;
  /** Double-submit token the UI echoes in X-CSRF-Token on state changes. */
  csrf: string;
  nonce: string;
}

/** Cookies of a request, by name. */
export function cookies(request: HttpRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) out[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return out;
}

/** Whether the request came over loopback without a proxy saying otherwise: cookies may then go without Secure. */
function isLoopback(request: HttpRequest, publicBaseUrl: string): boolean {
  if (publicBaseUrl.startsWith('https://')) return false;
  const host = (request.headers.host ?? '').replace(/:\d+$/, '');
  return ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host) && request.headers['x-forwarded-proto'] !== 'https';
}

/**
 * Admin UI sign-in: the orchestrator token is exchanged for a sealed, HttpOnly, SameSite=Strict
 * session cookie (Secure outside loopback). The cookie is sealed with the store's secret key, so it
 * survives a deploy; sign-out revokes its nonce. A state-changing request authenticated by the cookie
 * must carry the session's CSRF token (handed to the page by GET /admin/api/session, kept in memory)
 * in X-CSRF-Token, and a same-origin Origin when the browser sends one.
 */
export class AdminSessions {
  constructor(
    private readonly ports: Pick<GatewayPorts, 'tokens' | 'lockout' | 'sealer'>,
    private readonly publicBaseUrl: () => string,
  ) {}

  /** Checks the token and answers the Set-Cookie header of a new session, and its CSRF token. */
  async signIn(token: string, request: HttpRequest): Promise<{ cookie: string; csrf: string; expiresAt: string }> {
    const { lockout, tokens } = this.ports;
    const principal = await checkToken((t) => tokens.authenticate(t), lockout, token, request.remoteAddress);
    if (!principal) fail(ErrorCodes.UNAUTHORIZED, 'That token is not valid; use the orchestrator token printed at first start (ORCHESTRATOR_TOKEN).');
    if (principal.kind !== 'orchestrator') fail(ErrorCodes.FORBIDDEN, 'The admin UI needs the orchestrator token, not a team or agent token.');
    const data: SessionData = { exp: Math.floor(Date.now() / 1000) + SESSION_SECONDS, csrf: randomBytes(24).toString('base64url'), nonce: randomBytes(16).toString('base64url') };
    const sealed = encodeURIComponent(this.ports.sealer.seal(JSON.stringify(data)));
    const attrs = `Path=/; SameSite=Strict; Max-Age=${SESSION_SECONDS}${isLoopback(request, this.publicBaseUrl()) ? '' : '; Secure'}`;
    return {
      cookie: `${SESSION_COOKIE}=${sealed}; HttpOnly; ${attrs}`,
      csrf: data.csrf,
      expiresAt: new Date(data.exp * 1000).toISOString(),
    };
  }

  /** Ends the session of the request (if any) and answers cookies that clear it. */
  signOut(request: HttpRequest): string {
    const data = this.#read(request);
    if (data) REVOKED.set(data.nonce, data.exp);
    const attrs = `Path=/; SameSite=Strict; Max-Age=0${isLoopback(request, this.publicBaseUrl()) ? '' : '; Secure'}`;
    return `${SESSION_COOKIE}=; HttpOnly; ${attrs}`;
  }

  /** The session of the request, if it has a valid one. */
  session(request: HttpRequest): { expiresAt: string; csrf: string } | undefined {
    const data = this.#read(request);
    return data && { expiresAt: new Date(data.exp * 1000).toISOString(), csrf: data.csrf };
  }

  /**
   * The principal of a cookie-authenticated request, or undefined when it has no session cookie.
   * A state change must prove it came from the UI: CSRF header equal to the session's, same origin.
   */
  authenticate(request: HttpRequest): Principal | undefined {
    // Only the admin API takes the cookie; the agent-facing API stays bearer-only.
    if (!request.path.startsWith('/admin/api/') || !cookies(request)[SESSION_COOKIE]) return undefined;
    const data = this.#read(request);
    if (!data) fail(ErrorCodes.UNAUTHORIZED, 'The session has expired or was signed out; sign in again.');
    if (!SAFE_METHODS.has(request.method)) {
      const given = Buffer.from(request.headers[CSRF_HEADER] ?? '');
      const expected = Buffer.from(data.csrf);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        fail(ErrorCodes.FORBIDDEN, 'A state-changing request from a session needs the X-CSRF-Token header.');
      }
      const origin = request.headers.origin;
      if (origin !== undefined && origin !== 'null' && new URL(origin).host !== request.headers.host) {
        fail(ErrorCodes.FORBIDDEN, 'Cross-origin requests may not use the admin session.');
      }
      if (origin === 'null') fail(ErrorCodes.FORBIDDEN, 'Cross-origin requests may not use the admin session.');
    }
    return { kind: 'orchestrator' };
  }

  #read(request: HttpRequest): SessionData | undefined {
    const raw = cookies(request)[SESSION_COOKIE];
    if (!raw) return undefined;
    let data: SessionData;
    try {
      data = JSON.parse(this.ports.sealer.open(decodeURIComponent(raw))) as SessionData;
    } catch {
      return undefined;
    }
    const now = Math.floor(Date.now() / 1000);
    if (typeof data.exp !== 'number' || data.exp <= now || REVOKED.has(data.nonce)) return undefined;
    for (const [nonce, exp] of REVOKED) if (exp <= now) REVOKED.delete(nonce);
    return data;
  }
}
