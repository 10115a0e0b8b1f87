import { ErrorCodes } from '@switchboard/sdk';
import type { Principal } from '@switchboard/runtime';
import { AccessTokens } from './access-tokens.js';
import { BearerRefusal, challengeOf } from './bearer-refusal.js';
import type { ResourceServer } from './resource-server.js';

/** Resolves a token to the principal it stands for, or undefined when it is unknown or revoked. */
export type Authenticate = (token: string) => Promise<Principal | undefined>;

/**
 * The one way a bearer token is resolved, for REST and MCP alike: with OAuth on, a JWT is an access
 * token checked by the resource server; anything else is a static token.
 */
export function bearerAuthenticator(staticTokens: Authenticate, oauth: ResourceServer | undefined): Authenticate {
  if (!oauth) return staticTokens;
  return (token) => (AccessTokens.isJwt(token) ? oauth.verify(token) : staticTokens(token));
}

/** Refuses a token in the query string (`token`, or RFC 6750's `access_token`): it would end up in logs and histories. */
export function refuseQueryToken(queryString: string): void {
  if (queryString === '') return;
  const query = new URLSearchParams(queryString);
  if (query.has('access_token') || query.has('token')) {
    throw new BearerRefusal(ErrorCodes.BAD_REQUEST, 'Tokens are never accepted in a query string here; send Authorization: Bearer <token>.', { error: 'invalid_request' });
  }
}

/** A missing credential: 401 whose challenge names no error (RFC 6750 §3.1). */
export function missingToken(message: string): BearerRefusal {
  return new BearerRefusal(ErrorCodes.UNAUTHORIZED, message);
}

/** A static token that is unknown or revoked. */
export function unknownToken(): BearerRefusal {
  return new BearerRefusal(ErrorCodes.UNAUTHORIZED, 'The token is not valid; it may have been revoked.', { error: 'invalid_token' });
}

/** Gives a refusal thrown while serving `path` its `WWW-Authenticate` challenge (with the metadata URL when OAuth is on). */
export function challenge(err: unknown, path: string, oauth: ResourceServer | undefined): unknown {
  if (err instanceof BearerRefusal && err.challenge === undefined) {
    err.challenge = oauth ? oauth.challenge(path, err.bearer, err.message) : challengeOf(err.bearer, undefined, err.message);
  }
  return err;
}
