import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

describe('admin UI sign-in: session cookie and CSRF', () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway();
  });
  after(() => t.close());

  const signIn = async (token: string) => t.call('POST', '/admin/api/session', { json: { token } });
  const cookieOf = (res: Response) => res.headers.get('set-cookie')!.split(';')[0]!;

  it('exchanges the orchestrator token for an HttpOnly, SameSite=Strict cookie with expiry (no Secure on loopback)', async () => {
    const res = await signIn(t.orchestratorToken);
    assert.equal(res.status, 200);
    const setCookie = res.headers.get('set-cookie')!;
    assert.match(setCookie, /^sb_session=[^;]+; HttpOnly; Path=\/; SameSite=Strict; Max-Age=28800$/);
    assert.ok(!setCookie.includes(t.orchestratorToken), 'the token is not in the cookie');
    const body = await res.json() as any;
    assert.equal(body.signedIn, true);
    assert.ok(Date.parse(body.expiresAt) > Date.now());
    assert.equal(typeof body.csrfToken, 'string');
  });

  it('sets Secure when the public base URL is https or a proxy says https', async () => {
    const res = await t.call('POST', '/admin/api/session', { json: { token: t.orchestratorToken }, headers: { 'x-forwarded-proto': 'https' } });
    assert.match(res.headers.get('set-cookie')!, /; Secure/);
  });

  it('refuses a wrong token (401) and a team token (403)', async () => {
    assert.equal((await signIn('nope')).status, 401);
    assert.equal((await signIn(t.teamToken)).status, 403);
    assert.equal((await t.call('POST', '/admin/api/session', { json: { token: 42 } })).status, 400);
  });

  it('the cookie reads admin routes; state changes need the CSRF header and the same origin', async () => {
    const res = await signIn(t.orchestratorToken);
    const cookie = cookieOf(res);
    const { csrfToken } = await res.json() as any;
    assert.equal((await t.call('GET', '/admin/api/status', { headers: { cookie } })).status, 200);
    const session = await (await t.call('GET', '/admin/api/session', { headers: { cookie } })).json() as any;
    assert.equal(session.signedIn, true);
    assert.equal(session.csrfToken, csrfToken);
    const json = { accountSid: 'x', authToken: 'y' };
    assert.equal((await t.call('POST', '/admin/api/test/twilio', { headers: { cookie }, json })).status, 403, 'no CSRF header');
    assert.equal((await t.call('POST', '/admin/api/test/twilio', { headers: { cookie, 'x-csrf-token': 'forged' }, json })).status, 403);
    assert.equal(
      (await t.call('POST', '/admin/api/test/twilio', { headers: { cookie, 'x-csrf-token': csrfToken, origin: 'https://evil.example' }, json })).status,
      403,
      'cross-origin',
    );
    const ok = await t.call('POST', '/admin/api/test/twilio', { headers: { cookie, 'x-csrf-token': csrfToken, origin: t.url }, json });
    assert.equal(ok.status, 200);
    // The agent-facing API does not take the cookie.
    assert.equal((await t.call('GET', '/api/v1/channel-status?agentId=x', { headers: { cookie } })).status, 401);
  });

  it('a forged or tampered cookie is refused; bearer tokens keep working', async () => {
    assert.equal((await t.call('GET', '/admin/api/status', { headers: { cookie: 'sb_session=v1.abc.def.ghi' } })).status, 401);
    assert.equal((await t.call('GET', '/admin/api/status', { token: t.orchestratorToken })).status, 200);
  });

  it('sign-out revokes the session and clears the cookie', async () => {
    const cookie = cookieOf(await signIn(t.orchestratorToken));
    const out = await t.call('DELETE', '/admin/api/session', { headers: { cookie } });
    assert.equal(out.status, 200);
    assert.match(out.headers.get('set-cookie')!, /^sb_session=; HttpOnly;.*Max-Age=0/);
    assert.equal((await t.call('GET', '/admin/api/status', { headers: { cookie } })).status, 401, 'the old cookie no longer works');
    assert.equal((await (await t.call('GET', '/admin/api/session', { headers: { cookie } })).json() as any).signedIn, false);
  });
});
