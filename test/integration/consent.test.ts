import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@switchboard/runtime/testing';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectMcp, type ConnectedClient } from '../helpers/mcp-client.js';

const PERSON = '+14155550141';
const OTHER = '+14155550142';
const LISTED = '+14155550143';

type Agent = Awaited<ReturnType<typeof provisionAgent>>;

describe('consent records, the agent\'s own do-not-contact list, and refusals the operator sees', () => {
  let t: TestGateway;
  let careful: Agent;
  let plain: Agent;
  let carefulMcp: ConnectedClient;
  let plainMcp: ConnectedClient;
  before(async () => {
    t = await startTestGateway();
    careful = await provisionAgent(t, 'consent-bot', ['sms', 'voice'], { requireConsent: ['transactional', 'automated-call'] });
    plain = await provisionAgent(t, 'plain-bot', ['sms', 'voice']);
    carefulMcp = await connectMcp(t.url, 'streamable', careful.securityToken, careful.agentId);
    plainMcp = await connectMcp(t.url, 'sse', plain.securityToken, plain.agentId);
  });
  after(async () => {
    await carefulMcp?.close();
    await plainMcp?.close();
    await t?.close();
  });
  const body = async (res: Response) => (await res.json()) as any;
  const text = (agent: Agent, to: string) => t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to, body: 'Your order has shipped.' } });
  const call = (agent: Agent, to: string) => t.call('POST', '/api/v1/make-call', { token: agent.securityToken, json: { to, greeting: 'Hello' } });
  const refused = async (res: Response, code: string, what: string) => {
    const answer = await body(res);
    assert.equal(res.status, 403, `${what}: ${JSON.stringify(answer)}`);
    assert.equal(answer.code, code, what);
    return answer;
  };

  it('an agent that requires consent is refused until it is recorded, allowed after, refused after revoking; the check tool says so at each step', async () => {
    const sent = t.sim.messages().length;
    const calls = t.sim.calls().length;
    const first = await refused(await text(careful, PERSON), 'CONSENT_REQUIRED', 'a text without consent');
    assert.equal(first.details[0].kind, 'transactional');
    assert.match(first.error, /comms_record_consent/);
    assert.equal((await refused(await call(careful, PERSON), 'CONSENT_REQUIRED', 'a call without consent')).details[0].kind, 'automated-call');
    assert.equal(t.sim.messages().length, sent, 'no provider was asked to send');
    assert.equal(t.sim.calls().length, calls, 'no call was placed');

    const unknown = await carefulMcp.call('comms_check_consent', { contact: PERSON });
    assert.equal(unknown.isError, false, JSON.stringify(unknown.body));
    assert.deepEqual(unknown.body.consented, { transactional: false, marketing: false, 'automated-call': false });
    assert.deepEqual(unknown.body.required, ['transactional', 'automated-call']);

    const recorded = await carefulMcp.call('comms_record_consent', { contact: PERSON, channel: 'sms', kind: 'transactional', source: 'web-form', evidence: 'checkout form, box 2 ticked' });
    assert.equal(recorded.isError, false, JSON.stringify(recorded.body));
    assert.deepEqual((recorded.body.consent as any).kind, 'transactional');
    assert.equal((recorded.body.consent as any).scope, 'consent-bot');
    assert.equal((await text(careful, PERSON)).status, 200, 'a text with transactional consent');
    await refused(await call(careful, PERSON), 'CONSENT_REQUIRED', 'a text consent is not a call consent');

    const givenAt = '2026-01-15T10:00:00.000Z';
    const rest = await t.call('POST', '/api/v1/consents', { token: careful.securityToken, json: { contact: PERSON, kind: 'automated-call', source: 'call', evidence: 'CA0001', givenAt } });
    assert.equal(rest.status, 200);
    assert.equal((await body(rest)).consent.recordedAt, givenAt);
    assert.equal((await call(careful, PERSON)).status, 200, 'a call with automated-call consent');

    const both = await t.call('GET', `/api/v1/consents?contact=${encodeURIComponent(PERSON)}`, { token: careful.securityToken });
    assert.deepEqual((await body(both)).consented, { transactional: true, marketing: false, 'automated-call': true });

    const revoked = await carefulMcp.call('comms_revoke_consent', { contact: PERSON, kind: 'transactional', reason: 'asked by text' });
    assert.equal(revoked.isError, false, JSON.stringify(revoked.body));
    assert.deepEqual(revoked.body.revoked, ['transactional']);
    await refused(await text(careful, PERSON), 'CONSENT_REQUIRED', 'a text after revoking');
    const after = await carefulMcp.call('comms_check_consent', { contact: PERSON, channel: 'sms', kind: 'transactional' });
    assert.deepEqual(after.body.consented, { transactional: false });
    const [record] = after.body.consents as any[];
    assert.equal(record.source, 'web-form');
    assert.ok(record.revokedAt, 'the revoked record stays, with when');
    assert.deepEqual((await carefulMcp.call('comms_revoke_consent', { contact: PERSON, kind: 'transactional' })).body.revoked, [], 'nothing left to revoke');
  });

  it("the agent's do-not-contact tool stops its next text and call to the person, on its own list only", async () => {
    assert.equal((await text(plain, LISTED)).status, 200);
    const listed = await plainMcp.call('comms_do_not_contact', { contact: LISTED, channel: 'sms', reason: 'asked on a call not to be contacted again' });
    assert.equal(listed.isError, false, JSON.stringify(listed.body));
    assert.deepEqual(listed.body, { success: true, agentId: 'plain-bot', contact: LISTED, scope: 'plain-bot', changed: true });
    const sent = t.sim.messages().length;
    const calls = t.sim.calls().length;
    assert.match((await refused(await text(plain, LISTED), 'RECIPIENT_OPTED_OUT', 'a text after the tool')).error, /do-not-contact list \(agent,/);
    await refused(await call(plain, LISTED), 'RECIPIENT_OPTED_OUT', 'a call after the tool');
    assert.equal(t.sim.messages().length, sent);
    assert.equal(t.sim.calls().length, calls);
    assert.equal((await plainMcp.call('comms_do_not_contact', { contact: LISTED })).body.changed, false, 'already listed');
    const history = await body(await t.call('GET', `/admin/api/do-not-contact/history?address=${encodeURIComponent(LISTED)}`, { token: t.orchestratorToken }));
    assert.deepEqual(
      history.changes.map((c: any) => [c.action, c.scope, c.source, c.actor, c.reason]),
      [['added', 'plain-bot', 'agent', 'agent:plain-bot', 'asked on a call not to be contacted again']],
    );
    const rest = await t.call('POST', '/api/v1/do-not-contact', { token: careful.securityToken, json: { contact: `whatsapp:${OTHER}`, channel: 'whatsapp' } });
    assert.deepEqual(await body(rest), { success: true, agentId: 'consent-bot', contact: OTHER, scope: 'consent-bot', changed: true });
    await t.call('POST', '/api/v1/consents', { token: plain.securityToken, json: { contact: OTHER, kind: 'transactional', source: 'paper' } });
    assert.equal((await text(plain, OTHER)).status, 200, "another agent's list does not bind this one");
  });

  it('every refusal is counted in /metrics by code and channel and listed by the admin route', async () => {
    const counted = (metrics: string, code: string, channel: string) => {
      const line = metrics.split('\n').find((l) => l.startsWith(`switchboard_contact_refusals_total{code="${code}",channel="${channel}"}`));
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    await eventually(
      async () => {
        const metrics = await (await t.call('GET', '/metrics')).text();
        return counted(metrics, 'CONSENT_REQUIRED', 'sms') === 2 && counted(metrics, 'CONSENT_REQUIRED', 'voice') === 2 && counted(metrics, 'RECIPIENT_OPTED_OUT', 'sms') === 1 && counted(metrics, 'RECIPIENT_OPTED_OUT', 'voice') === 1;
      },
      { message: 'the refusals counted by code and channel' },
    );
    const admin = (path: string, token = t.orchestratorToken) => t.call('GET', path, { token });
    const mine = await body(await admin('/admin/api/refusals?agentId=consent-bot'));
    assert.deepEqual(
      mine.refusals.map((r: any) => [r.code, r.channel, r.address, r.call]),
      [
        ['CONSENT_REQUIRED', 'sms', PERSON, false],
        ['CONSENT_REQUIRED', 'voice', PERSON, true],
        ['CONSENT_REQUIRED', 'voice', PERSON, true],
        ['CONSENT_REQUIRED', 'sms', PERSON, false],
      ],
      'newest first',
    );
    assert.match(mine.refusals[0].message, /no transactional consent on record/);
    const optedOut = await body(await admin('/admin/api/refusals?code=RECIPIENT_OPTED_OUT'));
    assert.deepEqual(optedOut.refusals.map((r: any) => [r.agentId, r.channel]), [['plain-bot', 'voice'], ['plain-bot', 'sms']]);
    const page = await body(await admin('/admin/api/refusals?limit=3'));
    assert.equal(page.refusals.length, 3);
    const rest = await body(await admin(`/admin/api/refusals?limit=3&cursor=${page.nextCursor}`));
    assert.deepEqual(
      [...page.refusals, ...rest.refusals].map((r: any) => r.id),
      [...optedOut.refusals, ...mine.refusals].map((r: any) => r.id),
      'two pages, newest first, each refusal once',
    );
    assert.equal(rest.nextCursor, null, 'the last page');
    assert.equal((await admin('/admin/api/refusals', t.teamToken)).status, 403, 'the operator\'s only');
    const dashboard = await body(await admin('/admin/api/dashboard'));
    assert.deepEqual(dashboard.refusals.today, { CONSENT_REQUIRED: 4, RECIPIENT_OPTED_OUT: 2 }, 'the dashboard counts the day\'s refusals by code');
  });

  it('bad input gets the contract error body and stores nothing', async () => {
    const fresh = '+14155550149';
    const post = (path: string, json: unknown, token = careful.securityToken) => t.call('POST', path, { token, json });
    const cases: [string, unknown, number, string][] = [
      ['/api/v1/consents', { contact: '555-0100', kind: 'transactional', source: 'web-form' }, 400, 'VALIDATION_FAILED'],
      ['/api/v1/consents', { contact: 'someone@example.com', channel: 'sms', kind: 'transactional', source: 'web-form' }, 400, 'VALIDATION_FAILED'],
      ['/api/v1/consents', { contact: fresh, kind: 'newsletter', source: 'web-form' }, 400, 'VALIDATION_FAILED'],
      ['/api/v1/consents', { contact: fresh, kind: 'transactional' }, 400, 'VALIDATION_FAILED'],
      ['/api/v1/consents', { contact: fresh, kind: 'transactional', source: 'web-form', givenAt: '2999-01-01T00:00:00Z' }, 400, 'VALIDATION_FAILED'],
      ['/api/v1/consents', { contact: fresh, kind: 'transactional', source: 'web-form', extra: 1 }, 400, 'BAD_REQUEST'],
      ['/api/v1/consents/revoke', { contact: fresh, kind: 'sometimes' }, 400, 'VALIDATION_FAILED'],
      ['/api/v1/do-not-contact', { contact: 'not a person' }, 400, 'VALIDATION_FAILED'],
      ['/api/v1/do-not-contact', { contact: fresh, agentId: 'plain-bot' }, 403, 'FORBIDDEN'],
    ];
    for (const [path, json, status, code] of cases) {
      const res = await post(path, json);
      const answer = await body(res);
      assert.equal(res.status, status, `${path} ${JSON.stringify(json)}: ${JSON.stringify(answer)}`);
      assert.equal(answer.code, code, `${path} ${JSON.stringify(json)}`);
      assert.equal(typeof answer.error, 'string');
    }
    const tool = await carefulMcp.call('comms_record_consent', { contact: fresh, kind: 'transactional', source: 'web-form', unknownField: true });
    assert.equal(tool.isError, true);
    assert.equal(tool.body.code, 'BAD_REQUEST');
    assert.match(String(tool.body.error), /unknownField/);
    const missing = await t.call('GET', '/api/v1/consents', { token: careful.securityToken });
    assert.equal(missing.status, 400);
    assert.equal((await body(await t.call('GET', '/admin/api/refusals?cursor=nonsense', { token: t.orchestratorToken }))).code, 'VALIDATION_FAILED');
    assert.equal((await t.call('GET', '/admin/api/refusals?code=TOO_LATE', { token: t.orchestratorToken })).status, 400);
    assert.equal((await t.call('POST', '/admin/api/agents/consent-bot/contact-settings', { token: t.orchestratorToken, json: { requireConsent: ['always'] } })).status, 400);
    const provision = await t.call('POST', '/api/v1/provision', { token: t.teamToken, json: { agentId: 'bad-consent-bot', displayName: 'x', channels: ['sms'], requireConsent: ['sometimes'] } });
    assert.equal(provision.status, 400);
    assert.equal((await t.call('GET', '/admin/api/agents/bad-consent-bot', { token: t.orchestratorToken })).status, 404, 'no agent from a bad provision');

    const seen = await body(await t.call('GET', `/api/v1/consents?contact=${encodeURIComponent(fresh)}`, { token: careful.securityToken }));
    assert.deepEqual(seen.consents, [], 'no consent stored from a bad request');
    assert.deepEqual((await body(await t.call('GET', '/admin/api/do-not-contact?scope=consent-bot', { token: t.orchestratorToken }))).entries.map((e: any) => e.address), [OTHER]);
  });

  it('the operator sets which consents an agent requires', async () => {
    const newcomer = '+14155550150';
    await refused(await text(careful, newcomer), 'CONSENT_REQUIRED', 'transactional required');
    const set = await t.call('POST', '/admin/api/agents/consent-bot/contact-settings', { token: t.orchestratorToken, json: { requireConsent: ['automated-call'] } });
    assert.deepEqual(await body(set), { ok: true, agentId: 'consent-bot', requireConsent: ['automated-call'], listUnsubscribe: false, callingHoursOverride: null });
    assert.equal((await text(careful, newcomer)).status, 200, 'texts no longer need consent');
    await refused(await call(careful, newcomer), 'CONSENT_REQUIRED', 'calls still do');
    assert.deepEqual((await body(await t.call('GET', `/api/v1/consents?contact=${encodeURIComponent(newcomer)}`, { token: careful.securityToken }))).required, ['automated-call']);
  });

  // Last: its refusal would change the counts the tests above assert.
  it('a text marked marketing needs marketing consent where the agent requires it; its other texts do not', async () => {
    const promoter = await provisionAgent(t, 'promo-bot', ['sms'], { requireConsent: ['marketing'] });
    const promo = (marketing?: boolean) =>
      t.call('POST', '/api/v1/send-message', { token: promoter.securityToken, json: { channel: 'sms', to: OTHER, body: '20% off this week', ...(marketing === undefined ? {} : { marketing }) } });
    const sent = t.sim.messages().length;
    const first = await refused(await promo(true), 'CONSENT_REQUIRED', 'a marketing text without marketing consent');
    assert.equal(first.details[0].kind, 'marketing');
    assert.equal(t.sim.messages().length, sent, 'no provider was asked to send');
    assert.equal((await promo()).status, 200, 'a text not marked marketing needs no marketing consent');
    assert.equal((await promo(false)).status, 200);
    const recorded = await t.call('POST', '/api/v1/consents', { token: promoter.securityToken, json: { contact: OTHER, kind: 'marketing', source: 'web-form', evidence: 'newsletter box ticked' } });
    assert.equal(recorded.status, 200, await recorded.clone().text());
    assert.equal((await promo(true)).status, 200, 'a marketing text with marketing consent');
    const mcp = await connectMcp(t.url, 'streamable', promoter.securityToken, promoter.agentId);
    try {
      const tool = await mcp.call('comms_send_message', { channel: 'sms', to: OTHER, body: 'Last day of the sale', marketing: true });
      assert.equal(tool.isError, false, JSON.stringify(tool.body));
    } finally {
      await mcp.close();
    }
  });
});
