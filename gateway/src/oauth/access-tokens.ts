import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { Principal } from '@switchboard/runtime';
import { BearerRefusal } from './bearer-refusal.js';
import { scopesOf } from './scopes.js';

/** How access tokens are checked. */
export interface AccessTokenRules {
  /** Issuer identifiers of the trusted authorization servers. */
  readonly issuers: readonly string[];
  /** Audiences a token may carry; one must match (RFC 8707). */
  readonly audiences: readonly string[];
  readonly clockSkewSeconds: number;
  /** The claim naming the agent. */
  readonly agentClaim: string;
}

const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** Asymmetric algorithms only: a JWKS holds public keys, and `none` or HMAC must never pass. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
const DISCOVERY_TIMEOUT_MS = 5000;

const invalid = (message: string) => new BearerRefusal(ErrorCodes.UNAUTHORIZED, message, { error: 'invalid_token' });

/**
 * Checks JWT access tokens against their issuer's keys (found through the issuer's metadata and
 * cached by `jose`, which fetches again for an unknown key id): signature, issuer, audience,
 * expiry within the clock skew, and the agent claim. A token acts for one agent, with its scopes.
 */
export class AccessTokens {
  readonly #keys = new Map<string, Promise<JWTVerifyGetKey>>();

  constructor(private readonly rules: AccessTokenRules) {}

  /** True when the token has a JWT's shape; static tokens never do. */
  static isJwt(token: string): boolean {
    return JWT_SHAPE.test(token);
  }

  /** The principal of a valid access token; throws UNAUTHORIZED (invalid_token) saying why it is not. */
  async verify(token: string): Promise<Principal> {
    let issuer: unknown;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      throw invalid('The access token is not a well-formed JWT.');
    }
    if (typeof issuer !== 'string' || !this.rules.issuers.includes(issuer)) {
      throw invalid('The access token was issued by an authorization server this server does not trust; see /.well-known/oauth-protected-resource.');
    }
    const payload = await this.#verified(token, issuer);
    const agentId = payload[this.rules.agentClaim];
    if (typeof agentId !== 'string' || !AGENT_ID.test(agentId)) {
      throw invalid(`The access token names no agent: its ${this.rules.agentClaim} claim must be an agentId.`);
    }
    return { kind: 'client', agentId, scopes: scopesOf(payload), tokenId: grantOf(payload, token) };
  }

  async #verified(token: string, issuer: string): Promise<JWTPayload> {
    const keys = await this.#keysOf(issuer);
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer,
        audience: [...this.rules.audiences],
        clockTolerance: this.rules.clockSkewSeconds,
        requiredClaims: ['exp'],
        algorithms: ALGORITHMS,
      });
      return payload;
    } catch (err) {
      throw refusalOf(err, this.rules.audiences);
    }
  }

  /** The issuer's key set, from its metadata's jwks_uri; a failed discovery is tried again on the next token. */
  #keysOf(issuer: string): Promise<JWTVerifyGetKey> {
    let keys = this.#keys.get(issuer);
    if (!keys) {
      keys = discoverKeys(issuer);
      this.#keys.set(issuer, keys);
      keys.catch(() => this.#keys.delete(issuer));
    }
    return keys;
  }
}

/**
 * Which token an access token is, for what it makes (a task): its grant, the issuer, subject and client
 * (RFC 9068 `sub`, `client_id` or `azp`), so a refreshed token keeps its tasks and another client's or
 * user's token of the same agent does not see them; a token naming neither is only itself (its hash).
 */
function grantOf(payload: JWTPayload, token: string): string {
  const client = payload.client_id ?? payload.azp;
  const sub = payload.sub;
  const grant = typeof sub === 'string' || typeof client === 'string' ? JSON.stringify([payload.iss, sub ?? null, client ?? null]) : token;
  return createHash('sha256').update(grant).digest('base64url');
}

/** What a failed verification tells the client; a key set that cannot be fetched is this server's trouble (503), not the token's. */
function refusalOf(err: unknown, audiences: readonly string[]): SwitchboardError {
  const code = (err as { code?: string }).code;
  const claim = (err as { claim?: string }).claim;
  if (code === 'ERR_JWT_EXPIRED') return invalid('The access token has expired; get a new one.');
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && claim === 'aud') {
    return invalid(`The access token is for another resource; request one with resource=${audiences[0]} (RFC 8707).`);
  }
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') return invalid(`The access token's ${claim} claim is not valid.`);
  // A key set that times out, answers non-200 (jose's generic error) or is not a key set, or a fetch that fails.
  if (code === 'ERR_JWKS_TIMEOUT' || code === 'ERR_JOSE_GENERIC' || code === 'ERR_JWKS_INVALID' || (code === undefined && err instanceof TypeError)) {
    return new SwitchboardError(ErrorCodes.UNAVAILABLE, "The authorization server's keys could not be fetched; try again shortly.", { retryable: true, retryAfter: 5 });
  }
  return invalid('The access token does not verify against its issuer\'s keys.');
}

/** Reads the issuer's metadata (RFC 8414, then OpenID Connect discovery) and returns its remote key set. */
async function discoverKeys(issuer: string): Promise<JWTVerifyGetKey> {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  const candidates = [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`];
  for (const candidate of candidates) {
    const metadata = await fetchJson(candidate);
    if (!metadata) continue;
    if (metadata.issuer !== issuer) continue;
    if (typeof metadata.jwks_uri !== 'string') break;
    return createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: DISCOVERY_TIMEOUT_MS });
  }
  throw new SwitchboardError(ErrorCodes.UNAVAILABLE, `The metadata of the authorization server ${issuer} could not be read (no jwks_uri); try again shortly.`, {
    retryable: true,
    retryAfter: 5,
  });
}

async function fetchJson(url: string): Promise<Record<string, unknown> | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS), headers: { accept: 'application/json' } });
    if (!response.ok) return undefined;
    const body: unknown = await response.json();
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
