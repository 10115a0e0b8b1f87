import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { generateKeyPair, SignJWT } from 'jose';
import { AccessTokens } from '../../src/oauth/access-tokens.js';

/**
 * The failure paths the real authorization server of test/integration/oauth.test.ts cannot show: an
 * issuer whose key set is down, and an issuer nobody trusts. The tokens here only need to be JWTs.
 */
describe('AccessTokens failure paths', () => {
  let server: Server;
  let issuer: string;
  let token: string;
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/.well-known/oauth-authorization-server') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
        return;
      }
      res.statusCode = 500;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { privateKey } = await generateKeyPair('RS256');
    token = await new SignJWT({ switchboard_agent: 'a' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k' })
      .setIssuer(issuer)
      .setAudience('https://gw.example')
      .setExpirationTime('5m')
      .sign(privateKey);
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const rules = (issuers: string[]) => ({ issuers, audiences: ['https://gw.example'], clockSkewSeconds: 60, agentClaim: 'switchboard_agent' });

  it("answers 503 UNAVAILABLE, not 401, when the issuer's key set cannot be fetched", async () => {
    await assert.rejects(new AccessTokens(rules([issuer])).verify(token), (err: { code?: string }) => err.code === 'UNAVAILABLE');
  });

  it('refuses a token from an issuer that is not configured, without fetching anything from it', async () => {
    await assert.rejects(new AccessTokens(rules(['https://as.example'])).verify(token), (err: { code?: string; bearer?: { error?: string } }) => {
      assert.equal(err.code, 'UNAUTHORIZED');
      assert.equal(err.bearer?.error, 'invalid_token');
      return true;
    });
  });

  it('tells JWTs from static tokens by shape', () => {
    assert.equal(AccessTokens.isJwt(token), true);
    assert.equal(AccessTokens.isJwt('sb_team_abcdef0123456789'), false);
    assert.equal(AccessTokens.isJwt('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'), false, 'an unsigned JWT is no access token');
  });
});
