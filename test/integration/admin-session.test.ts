import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
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

  it('sign-out needs the CSRF token: a cookie alone, a forged token or another origin is refused and signs nothing out', async () => {
    const res = await signIn(t.orchestratorToken);
    const cookie = cookieOf(res);
    const { csrfToken } = (await res.json()) as { csrfToken: string };
    const refused: Record<string, string>[] = [{ cookie }, { cookie, 'x-csrf-token': 'forged' }, { cookie, 'x-csrf-token': csrfToken, origin: 'https://evil.example' }];
    for (const headers of refused) {
      const out = await t.call('DELETE', '/admin/api/session', { headers });
      assert.equal(out.status, 403);
      assert.equal(((await out.json()) as { code: string }).code, 'FORBIDDEN');
      assert.equal(out.headers.get('set-cookie'), null);
    }
    assert.equal((await t.call('GET', '/admin/api/status', { headers: { cookie } })).status, 200, 'still signed in');
    const stale = await t.call('DELETE', '/admin/api/session', { headers: { cookie: 'sb_session=v1.abc.def.ghi' } });
    assert.equal(stale.status, 200, 'a cookie that is no session is just cleared');
  });

  it('sign-out revokes the session and clears the cookie', async () => {
    const res = await signIn(t.orchestratorToken);
    const cookie = cookieOf(res);
    const { csrfToken } = (await res.json()) as { csrfToken: string };
    const out = await t.call('DELETE', '/admin/api/session', { headers: { cookie, 'x-csrf-token': csrfToken } });
    assert.equal(out.status, 200);
    assert.match(out.headers.get('set-cookie')!, /^sb_session=; HttpOnly;.*Max-Age=0/);
    assert.equal((await t.call('GET', '/admin/api/status', { headers: { cookie } })).status, 401, 'the old cookie no longer works');
    assert.equal((await (await t.call('GET', '/admin/api/session', { headers: { cookie } })).json() as any).signedIn, false);
  });
});

describe('admin sessions and the orchestrator token', () => {
  it('a new ORCHESTRATOR_TOKEN ends the sessions signed in under the old one', async () => {
    const first = await startTestGateway();
    let cookie: string;
    try {
      const res = await first.call('POST', '/admin/api/session', { json: { token: first.orchestratorToken } });
      cookie = res.headers.get('set-cookie')!.split(';')[0]!;
      assert.equal((await first.call('GET', '/admin/api/status', { headers: { cookie } })).status, 200);
    } finally {
      await first.close({ keepData: true });
    }
    const newToken = `sb_orch_${randomBytes(24).toString('base64url')}`;
    const second = await startTestGateway({ ORCHESTRATOR_TOKEN: newToken }, first.dataDir);
    try {
      assert.equal((await second.call('GET', '/admin/api/status', { headers: { cookie } })).status, 401, 'the old session is over');
      assert.equal((await second.call('POST', '/admin/api/session', { json: { token: first.orchestratorToken } })).status, 401, 'the old token is refused');
      const res = await second.call('POST', '/admin/api/session', { json: { token: newToken } });
      const fresh = res.headers.get('set-cookie')!.split(';')[0]!;
      assert.equal((await second.call('GET', '/admin/api/status', { headers: { cookie: fresh } })).status, 200);
    } finally {
      await second.close();
    }
  });
});
