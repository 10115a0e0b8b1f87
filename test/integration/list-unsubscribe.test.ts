import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const READER = 'reader@example.com';
const OTHER_READER = 'someone.else@example.com';
const ONE_CLICK = { 'content-type': 'application/x-www-form-urlencoded' };

describe('one-click unsubscribe for email (RFC 8058), per agent', () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let plain: Awaited<ReturnType<typeof provisionAgent>>;
  before(async () => {
    t = await startTestGateway();
    agent = await provisionAgent(t, 'newsletter-bot', ['email']);
    plain = await provisionAgent(t, 'plain-mailer', ['email'], { listUnsubscribe: false });
  });
  after(() => t.close());
  const body = async (res: Response) => (await res.json()) as any;
  const email = (to: string, token = agent.securityToken) => t.call('POST', '/api/v1/send-message', { token, json: { channel: 'email', to, subject: 'News', body: 'This week.' } });
  /** The headers the simulated Resend received with the last email to `to`. */
  const headersTo = (to: string) => t.sim.messages({ provider: 'resend' }).filter((m) => m.to.toLowerCase() === to).at(-1)?.headers ?? {};
  /** The path of the List-Unsubscribe link of the last email to `to`. */
  const linkTo = (to: string) => {
    const link = /^<(https?:\/\/[^>]+)>$/.exec(headersTo(to)['List-Unsubscribe'] ?? '')?.[1];
    assert.ok(link, JSON.stringify(headersTo(to)));
    return new URL(link).pathname;
  };
  const history = async (address: string) => (await body(await t.call('GET', `/admin/api/do-not-contact/history?address=${encodeURIComponent(address)}`, { token: t.orchestratorToken }))).changes;

  it('is off by default; the operator turns it on, and every email then carries List-Unsubscribe and List-Unsubscribe-Post', async () => {
    assert.equal((await email(READER)).status, 200);
    assert.equal(headersTo(READER)['List-Unsubscribe'], undefined, 'off by default');
    const set = await t.call('POST', `/admin/api/agents/${agent.agentId}/contact-settings`, { token: t.orchestratorToken, json: { listUnsubscribe: true } });
    assert.equal(set.status, 200);
    assert.deepEqual(await body(set), { ok: true, agentId: agent.agentId, requireConsent: [], listUnsubscribe: true, callingHoursOverride: null });
    assert.equal((await email(READER)).status, 200);
    assert.match(headersTo(READER)['List-Unsubscribe']!, /^<https?:\/\/[^>]+\/unsubscribe\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+>$/);
    assert.equal(headersTo(READER)['List-Unsubscribe-Post'], 'List-Unsubscribe=One-Click');
    assert.equal((await email(OTHER_READER, plain.securityToken)).status, 200);
    assert.equal(headersTo(OTHER_READER)['List-Unsubscribe'], undefined, "another agent's emails do not carry it");
  });

  it('a GET shows a button and unsubscribes no one (link scanners follow GETs)', async () => {
    const page = await t.call('GET', linkTo(READER));
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(page.headers.get('set-cookie'), null);
    assert.match(await page.text(), /<form method="post">[\s\S]*name="List-Unsubscribe" value="One-Click"/);
    assert.deepEqual(await history(READER), []);
    assert.equal((await email(READER)).status, 200, 'still subscribed');
  });

  it('a forged or altered link is 404 with the contract error, and stores nothing', async () => {
    const path = linkTo(READER);
    const [subject, code] = path.slice('/unsubscribe/'.length).split('.');
    const forgedSubject = Buffer.from(JSON.stringify([agent.agentId, OTHER_READER])).toString('base64url');
    for (const bad of [`${forgedSubject}.${code}`, `${subject}.${'A'.repeat(43)}`, 'not-a-token', `${Buffer.from(JSON.stringify(['no-such-agent', READER])).toString('base64url')}.${code}`]) {
      for (const method of ['GET', 'POST']) {
        const res = await t.call(method, `/unsubscribe/${bad}`, method === 'POST' ? { headers: ONE_CLICK, body: 'List-Unsubscribe=One-Click' } : {});
        assert.equal(res.status, 404, `${method} ${bad}`);
        const error = await body(res);
        assert.equal(error.code, 'NOT_FOUND');
        assert.equal(typeof error.error, 'string');
      }
    }
    assert.deepEqual(await history(READER), []);
    assert.deepEqual(await history(OTHER_READER), []);
  });

  it('a POST of List-Unsubscribe=One-Click puts the address on the agent\'s list: its next email there is refused, other addresses and agents still work', async () => {
    const path = linkTo(READER);
    const res = await t.call('POST', path, { headers: ONE_CLICK, body: 'List-Unsubscribe=One-Click' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('set-cookie'), null);
    assert.equal((await t.call('POST', path, { headers: ONE_CLICK, body: 'List-Unsubscribe=One-Click' })).status, 200, 'a repeat is harmless');
    const sent = t.sim.messages({ provider: 'resend' }).length;
    const refused = await email(READER.toUpperCase());
    assert.equal(refused.status, 403);
    const error = await body(refused);
    assert.equal(error.code, 'RECIPIENT_OPTED_OUT');
    assert.match(error.error, /email-unsubscribe/);
    assert.equal(t.sim.messages({ provider: 'resend' }).length, sent, 'the refused email reached no provider');
    assert.equal((await email(OTHER_READER)).status, 200, 'another address still works');
    assert.equal((await email(READER, plain.securityToken)).status, 200, "another agent's list is its own");
    assert.deepEqual((await history(READER)).map((c: any) => [c.action, c.scope, c.source, c.actor]), [['added', agent.agentId, 'email-unsubscribe', 'contact']]);
  });

  it('can be set at provisioning, and the operator lifts an unsubscribe like any other entry', async () => {
    const bot = await provisionAgent(t, 'digest-bot', ['email'], { listUnsubscribe: true });
    assert.equal((await email(OTHER_READER, bot.securityToken)).status, 200);
    const path = linkTo(OTHER_READER);
    // RFC 8058 lets the mail client post it as multipart/form-data too.
    const boundary = 'sb-boundary';
    const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`;
    assert.equal((await t.call('POST', path, { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: multipart })).status, 200);
    assert.equal((await email(OTHER_READER, bot.securityToken)).status, 403);
    const lifted = await t.call('POST', '/admin/api/do-not-contact/remove', { token: t.orchestratorToken, json: { address: OTHER_READER, scope: bot.agentId, reason: 'subscribed again in writing' } });
    assert.equal(lifted.status, 200, await lifted.clone().text());
    assert.equal((await email(OTHER_READER, bot.securityToken)).status, 200);
  });
});
