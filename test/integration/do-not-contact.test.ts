import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const PERSON = '+14155550177';

describe('the operator\'s do-not-contact list over the admin API', () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway();
  });
  after(() => t.close());
  const admin = (method: string, path: string, json?: unknown, token = t.orchestratorToken) => t.call(method, path, { token, ...(json === undefined ? {} : { json }) });
  const body = async (res: Response) => (await res.json()) as any;

  it('adds an address for every agent or one, lists it with its source, and removes it with a reason the history keeps', async () => {
    assert.deepEqual(await body(await admin('POST', '/admin/api/do-not-contact', { address: `whatsapp:${PERSON}`, reason: 'asked on a call' })), { address: PERSON, scope: '*', changed: true });
    assert.equal((await body(await admin('POST', '/admin/api/do-not-contact', { address: PERSON }))).changed, false, 'already listed');
    assert.equal((await body(await admin('POST', '/admin/api/do-not-contact', { address: 'Someone@Example.com', scope: 'support-bot' }))).address, 'someone@example.com');
    const page = await body(await admin('GET', '/admin/api/do-not-contact?scope=*'));
    assert.deepEqual(page.entries.map((e: any) => [e.address, e.scope, e.source, e.reason, e.actor]), [[PERSON, '*', 'admin', 'asked on a call', 'operator']]);
    assert.equal(page.nextCursor, null);
    assert.equal((await body(await admin('GET', '/admin/api/do-not-contact'))).entries.length, 2);
    assert.equal((await body(await admin('POST', '/admin/api/do-not-contact/remove', { address: PERSON, reason: 'opted in again in writing' }))).changed, true);
    const history = await body(await admin('GET', `/admin/api/do-not-contact/history?address=${encodeURIComponent(PERSON)}`));
    assert.deepEqual(history.changes.map((c: any) => [c.action, c.reason]), [['added', 'asked on a call'], ['removed', 'opted in again in writing']]);
  });

  it('imports a CSV: a header, reasons, quoted fields; bad rows come back with their line and why', async () => {
    const csv = 'address,reason\n+14155550178,complained\n"someone.else@example.com","asked, by email"\nnot-an-address\n+14155550178\n';
    const res = await t.call('POST', '/admin/api/do-not-contact/import', { token: t.orchestratorToken, headers: { 'content-type': 'text/csv' }, body: csv });
    assert.equal(res.status, 200);
    const result = await body(res);
    assert.deepEqual([result.added, result.alreadyListed], [2, 1]);
    assert.deepEqual(result.rejected.map((r: any) => [r.line, r.value]), [[4, 'not-an-address']]);
    const listed = await body(await admin('GET', '/admin/api/do-not-contact/history?address=someone.else@example.com'));
    assert.deepEqual(listed.changes.map((c: any) => [c.source, c.reason, c.actor]), [['import', 'asked, by email', 'import']]);
  });

  it('bad input gets the contract error and stores nothing; only the operator may use it', async () => {
    const before = (await body(await admin('GET', '/admin/api/do-not-contact'))).entries.length;
    const bad = await admin('POST', '/admin/api/do-not-contact', { address: '555-0100' });
    assert.equal(bad.status, 400);
    assert.equal((await body(bad)).code, 'VALIDATION_FAILED');
    assert.equal((await admin('POST', '/admin/api/do-not-contact', { address: PERSON, extra: 1 })).status, 400, 'an unknown field');
    assert.equal((await admin('POST', '/admin/api/do-not-contact/remove', { address: PERSON })).status, 400, 'a removal needs its reason');
    assert.equal((await admin('GET', '/admin/api/do-not-contact?limit=0')).status, 400);
    const unquoted = await t.call('POST', '/admin/api/do-not-contact/import', { token: t.orchestratorToken, headers: { 'content-type': 'text/csv' }, body: '"+14155550179,unterminated\n' });
    assert.equal(unquoted.status, 400);
    assert.equal((await body(unquoted)).code, 'MALFORMED_PAYLOAD');
    assert.equal((await t.call('POST', '/admin/api/do-not-contact/import', { token: t.orchestratorToken, json: { csv: '+14155550179' } })).status, 415);
    assert.equal((await t.call('GET', '/admin/api/do-not-contact')).status, 401);
    assert.equal((await admin('GET', '/admin/api/do-not-contact', undefined, t.teamToken)).status, 403);
    assert.equal((await body(await admin('GET', '/admin/api/do-not-contact'))).entries.length, before, 'nothing stored from a bad request');
  });

  it('a listed number is refused before any provider: texts, WhatsApp and calls answer 403 RECIPIENT_OPTED_OUT', async () => {
    const agent = await provisionAgent(t, 'dnc-bot', ['sms', 'whatsapp', 'voice']);
    const listed = '+13125550170';
    assert.equal((await admin('POST', '/admin/api/do-not-contact', { address: listed, reason: 'asked by letter' })).status, 200);
    const sentBefore = t.sim.messages().length;
    const callsBefore = t.sim.calls().length;
    for (const [path, json] of [
      ['/api/v1/send-message', { channel: 'sms', to: listed, body: 'hello' }],
      ['/api/v1/send-message', { channel: 'whatsapp', to: listed, body: 'hello' }],
      ['/api/v1/make-call', { to: listed, greeting: 'Hello' }],
    ] as const) {
      const res = await t.call('POST', path, { token: agent.securityToken, json });
      assert.equal(res.status, 403, `${path} ${JSON.stringify(json)}`);
      const refused = await body(res);
      assert.equal(refused.code, 'RECIPIENT_OPTED_OUT');
      assert.match(refused.error, /do-not-contact list/);
    }
    assert.equal(t.sim.messages().length, sentBefore, 'no provider was asked to send');
    assert.equal(t.sim.calls().length, callsBefore, 'no call was placed');
  });

  it('STOP by text puts the number on the agent\'s list (calls too), START takes it off; another agent is not kept from it', async () => {
    const agent = await provisionAgent(t, 'stop-bot', ['sms', 'voice']);
    const other = await provisionAgent(t, 'other-bot', ['sms']);
    const person = '+13125550171';
    assert.equal((await t.sim.inbound.sms({ agentId: 'stop-bot', from: person, to: agent.channels.sms!.address, body: 'STOP' })).status, 200);
    const call = await t.call('POST', '/api/v1/make-call', { token: agent.securityToken, json: { to: person, greeting: 'Hello' } });
    assert.equal(call.status, 403);
    assert.equal((await body(call)).code, 'RECIPIENT_OPTED_OUT');
    const text = await body(await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: person, body: 'still there?' } }));
    assert.match(text.error, /text START/);
    assert.equal((await t.call('POST', '/api/v1/send-message', { token: other.securityToken, json: { channel: 'sms', to: person, body: 'from another agent' } })).status, 200);
    const history = await body(await admin('GET', `/admin/api/do-not-contact/history?address=${encodeURIComponent(person)}`));
    assert.deepEqual(history.changes.map((c: any) => [c.action, c.scope, c.source, c.actor]), [['added', 'stop-bot', 'sms-stop', 'contact']]);
    assert.equal((await t.sim.inbound.sms({ agentId: 'stop-bot', from: person, to: agent.channels.sms!.address, body: 'START' })).status, 200);
    assert.equal((await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: person, body: 'welcome back' } })).status, 200);
  });

  it('the operator narrows a STOP to texts, with a reason the history keeps: the agent may call again, not text', async () => {
    const agent = await provisionAgent(t, 'narrow-bot', ['sms', 'voice']);
    const person = '+13125550172';
    assert.equal((await t.sim.inbound.sms({ agentId: 'narrow-bot', from: person, to: agent.channels.sms!.address, body: 'STOP' })).status, 200);
    const call = () => t.call('POST', '/api/v1/make-call', { token: agent.securityToken, json: { to: person, greeting: 'Hello' } });
    const text = () => t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: person, body: 'still there?' } });
    assert.equal((await call()).status, 403, 'a STOP covers calls too');
    const narrow = (json: unknown) => admin('POST', '/admin/api/do-not-contact/narrow', json);
    assert.equal((await narrow({ address: person, scope: 'narrow-bot', channels: ['sms'] })).status, 400, 'a narrowing needs its reason');
    assert.equal((await narrow({ address: person, scope: 'narrow-bot', channels: ['fax'], reason: 'x' })).status, 400);
    assert.equal((await narrow({ address: person, scope: 'narrow-bot', channels: ['sms'], reason: 'asked not to be texted; calls are fine' })).status, 200);
    assert.deepEqual(await body(await narrow({ address: '+13125550199', scope: 'narrow-bot', channels: ['sms'], reason: 'x' })), { address: '+13125550199', scope: 'narrow-bot', changed: false }, 'nothing to narrow');
    t.sim.phone.onOutbound(person, { steps: ['Thanks, bye.'], replyTimeoutMs: 4000 });
    const placed = await call();
    assert.equal(placed.status, 200, await placed.clone().text());
    await t.sim.phone.get(((await placed.json()) as { callSid: string }).callSid)!.done;
    const refused = await body(await text());
    assert.equal(refused.code, 'RECIPIENT_OPTED_OUT');
    assert.match(refused.error, /on sms/);
    const listed = await body(await admin('GET', '/admin/api/do-not-contact?scope=narrow-bot'));
    assert.deepEqual(listed.entries.map((e: any) => [e.address, e.channels]), [[person, ['sms']]]);
    const history = await body(await admin('GET', `/admin/api/do-not-contact/history?address=${encodeURIComponent(person)}`));
    assert.deepEqual(history.changes.map((c: any) => [c.action, c.actor, c.reason]), [['added', 'contact', 'replied STOP'], ['narrowed', 'operator', 'asked not to be texted; calls are fine (now sms only)']]);
  });
});
