import type { Server } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { freePort } from '@switchboard/runtime/testing';

/** A client of the test authorization server: its credentials, the agent it stands for and the scopes it may get. */
export interface TestOAuthClient {
  readonly clientId: string;
  /** The `switchboard_agent` claim of its access tokens; none when omitted. */
  readonly agentId?: string;
  /** Scopes it may request, space-separated. */
  readonly scope: string;
  /** Lifetime of its access tokens; default 300 s. */
  readonly ttlSeconds?: number;
}

/** A real OAuth 2.1 / OpenID Connect authorization server (oidc-provider) on loopback. */
export interface TestAuthorizationServer {
  readonly issuer: string;
  /** An access token (JWT) by client_credentials for `resource` (RFC 8707) with `scope` (none when empty). */
  token(clientId: string, resource: string, scope: string): Promise<string>;
  close(): Promise<void>;
}

const SECRET = 'test-client-secret-0123456789abcdef';

/**
 * Starts oidc-provider with the client_credentials grant and resource indicators: each resource is
 * served JWT access tokens whose audience is the resource, carrying the client's agent in a
 * `switchboard_agent` claim. Signed with a fresh RS256 key, published at its jwks_uri.
 */
export async function startAuthorizationServer(clients: readonly TestOAuthClient[], scopes: readonly string[]): Promise<TestAuthorizationServer> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'test-key-1' };
  const byId = new Map(clients.map((c) => [c.clientId, c]));
  const provider = new Provider(issuer, {
    jwks: { keys: [signingKey] },
    ttl: { ClientCredentials: (_ctx: unknown, _token: unknown, client: { clientId: string }) => byId.get(client.clientId)?.ttlSeconds ?? 300 },
    scopes: [...scopes],
    clients: clients.map((c) => ({
      client_id: c.clientId,
      client_secret: SECRET,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      scope: c.scope,
    })),
    features: {
      clientCredentials: { enabled: true },
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string, client: { clientId: string }) => ({
          audience: resource,
          scope: scopes.join(' '),
          accessTokenFormat: 'jwt',
          accessTokenTTL: byId.get(client.clientId)?.ttlSeconds ?? 300,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    extraTokenClaims: (_ctx: unknown, token: { clientId?: string }) => {
      const agentId = byId.get(token.clientId ?? '')?.agentId;
      return agentId === undefined ? undefined : { switchboard_agent: agentId };
    },
  });
  const server: Server = await new Promise((resolve) => {
    const s = provider.listen(port, '127.0.0.1', () => resolve(s));
  });
  return {
    issuer,
    async token(clientId, resource, scope) {
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${SECRET}`).toString('base64')}` },
        // No scope asked for (''): a token without a scope claim.
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, ...(scope ? { scope } : {}) }),
      });
      const body = (await res.json()) as { access_token?: string };
      if (!res.ok || !body.access_token) throw new Error(`the authorization server refused a token: ${res.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
