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

interface SessionData {
  /** Expiry, epoch seconds. */
  exp: number;
  /** Double-submit token the UI echoes in X-CSRF-Token on state changes. */
  csrf: string;
  /** The sessions' epoch it was signed in under (see SessionEpoch): sign-out and a new orchestrator token end it. */
  epoch: string;
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
 * survives a deploy, and carries the sessions' epoch in the store: sign-out (on any gateway) and a
 * new orchestrator token move the epoch on, which ends every session. A state-changing request
 * authenticated by the cookie, sign-out included, must carry the session's CSRF token (handed to the
 * page by GET /admin/api/session, kept in memory) in X-CSRF-Token, and a same-origin Origin when the
 * browser sends one.
 */
export class AdminSessions {
  constructor(
    private readonly ports: Pick<GatewayPorts, 'tokens' | 'lockout' | 'sealer' | 'sessionEpoch'>,
    private readonly publicBaseUrl: () => string,
  ) {}

  /** Checks the token and answers the Set-Cookie header of a new session, and its CSRF token. */
  async signIn(token: string, request: HttpRequest): Promise<{ cookie: string; csrf: string; expiresAt: string }> {
    const { lockout, tokens, sessionEpoch } = this.ports;
    const principal = await checkToken((t) => tokens.authenticate(t), lockout, token, request.remoteAddress);
    if (!principal) fail(ErrorCodes.UNAUTHORIZED, 'That token is not valid; use the orchestrator token printed at first start (ORCHESTRATOR_TOKEN).');
    if (principal.kind !== 'orchestrator') fail(ErrorCodes.FORBIDDEN, 'The admin UI needs the orchestrator token, not a team or agent token.');
    const data: SessionData = {
      exp: Math.floor(Date.now() / 1000) + SESSION_SECONDS,
      csrf: randomBytes(24).toString('base64url'),
      epoch: await sessionEpoch.current(),
    };
    const sealed = encodeURIComponent(this.ports.sealer.seal(JSON.stringify(data)));
    const attrs = `Path=/; SameSite=Strict; Max-Age=${SESSION_SECONDS}${isLoopback(request, this.publicBaseUrl()) ? '' : '; Secure'}`;
    return {
      cookie: `${SESSION_COOKIE}=${sealed}; HttpOnly; ${attrs}`,
      csrf: data.csrf,
      expiresAt: new Date(data.exp * 1000).toISOString(),
    };
  }

  /**
   * Ends the admin sessions and answers the cookie that clears this one. A valid session must prove
   * the request came from the UI (CSRF header, same origin); without a valid one only the cookie is cleared.
   */
  async signOut(request: HttpRequest): Promise<string> {
    const data = await this.#read(request);
    if (data) {
      this.#checkFromUi(request, data);
      await this.ports.sessionEpoch.advance();
    }
    const attrs = `Path=/; SameSite=Strict; Max-Age=0${isLoopback(request, this.publicBaseUrl()) ? '' : '; Secure'}`;
    return `${SESSION_COOKIE}=; HttpOnly; ${attrs}`;
  }

  /** The session of the request, if it has a valid one. */
  async session(request: HttpRequest): Promise<{ expiresAt: string; csrf: string } | undefined> {
    const data = await this.#read(request);
    return data && { expiresAt: new Date(data.exp * 1000).toISOString(), csrf: data.csrf };
  }

  /**
   * The principal of a cookie-authenticated request, or undefined when it has no session cookie.
   * A state change must prove it came from the UI: CSRF header equal to the session's, same origin.
   */
  async authenticate(request: HttpRequest): Promise<Principal | undefined> {
    // Only the admin API takes the cookie; the agent-facing API stays bearer-only.
    if (!request.path.startsWith('/admin/api/') || !cookies(request)[SESSION_COOKIE]) return undefined;
    const data = await this.#read(request);
    if (!data) fail(ErrorCodes.UNAUTHORIZED, 'The session has expired or was signed out; sign in again.');
    if (!SAFE_METHODS.has(request.method)) this.#checkFromUi(request, data);
    return { kind: 'orchestrator' };
  }

  #checkFromUi(request: HttpRequest, data: SessionData): void {
    const given = Buffer.from(request.headers[CSRF_HEADER] ?? '');
    const expected = Buffer.from(data.csrf);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      fail(ErrorCodes.FORBIDDEN, 'A state-changing request from a session needs the X-CSRF-Token header.');
    }
    const origin = request.headers.origin;
    if (origin === 'null' || (origin !== undefined && !sameHost(origin, request.headers.host))) {
      fail(ErrorCodes.FORBIDDEN, 'Cross-origin requests may not use the admin session.');
    }
  }

  async #read(request: HttpRequest): Promise<SessionData | undefined> {
    const raw = cookies(request)[SESSION_COOKIE];
    if (!raw) return undefined;
    let data: SessionData;
    try {
      data = JSON.parse(this.ports.sealer.open(decodeURIComponent(raw))) as SessionData;
    } catch {
      return undefined;
    }
    if (typeof data.exp !== 'number' || data.exp <= Math.floor(Date.now() / 1000) || typeof data.epoch !== 'string') return undefined;
    return data.epoch === (await this.ports.sessionEpoch.current()) ? data : undefined;
  }
}

/** Whether an Origin header names the Host the request came to. */
function sameHost(origin: string, host: string | undefined): boolean {
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
