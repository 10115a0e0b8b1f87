import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@switchboard/runtime/testing';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const AGENT = 'erasure-bot';
const PERSON = '+13125550166';
const OTHER = '+13125550167';

describe('erasure: a person removed everywhere, with a receipt', () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway({ VOICE_MODE: 'relay' });
  });
  after(() => t?.close());
  const json = async <T>(res: Response) => (await res.json()) as T;
  const admin = (method: string, path: string, body?: unknown) => t.call(method, path, { token: t.orchestratorToken, ...(body === undefined ? {} : { json: body }) });

  /** Every row of every table, as text: what a search of the store finds. */
  const everyRow = async () => {
    const stored = t.gateway.runtime.inspect.stored;
    const tables = (
      await stored.rows<{ name: string }>(
        process.env.SWITCHBOARD_TEST_CLUSTER
          ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
          : "SELECT name FROM sqlite_master WHERE type = 'table'",
      )
    ).map((r) => r.name);
    assert.ok(tables.includes('messages') && tables.includes('contact_blocks'), `the search sees the tables: ${tables.join(', ')}`);
    const rows = await Promise.all(tables.map(async (table) => [table, JSON.stringify(await stored.rows(`SELECT * FROM ${table}`))] as const));
    return rows;
  };

  it('erases messages, calls with transcripts and the recording, dead letters, inbox entries and callbacks; keeps the do-not-contact entry as a digest', async () => {
    const agent = await provisionAgent(t, AGENT, ['sms', 'voice'], { recordCalls: true, greeting: 'Hello, this call is recorded.' });
    const sent = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, headers: { 'idempotency-key': 'erase-1' }, json: { channel: 'sms', to: PERSON, body: 'Your appointment is at 3' } });
    assert.equal(sent.status, 200, await sent.clone().text());
    assert.equal((await t.sim.inbound.sms({ agentId: AGENT, from: PERSON, to: agent.channels.sms!.address, body: 'Please forget me' })).status, 200);
    assert.equal((await t.sim.inbound.sms({ agentId: AGENT, from: OTHER, to: agent.channels.sms!.address, body: 'I stay' })).status, 200);
    const call = await t.sim.phone.call({ agentId: AGENT, from: PERSON, to: agent.channels.voice!.address, mode: 'relay', script: { steps: ['This is my private message.'] } });
    const { callSid, errors } = await call.done;
    assert.deepEqual(errors, []);
    const file = await eventually(async () => (await t.gateway.runtime.inspect.stored.row<{ recording_file: string | null }>('SELECT recording_file FROM calls WHERE call_sid = ?', [callSid]))?.recording_file, { message: 'the call is recorded', timeoutMs: 20_000 });
    const wav = join(t.dataDir, 'recordings', file);
    assert.ok(existsSync(wav));
    await eventually(async () => (await t.gateway.runtime.inspect.stored.waitingLetters(AGENT)) >= 2, { message: 'both inbound texts wait as dead letters' });
    assert.equal((await admin('POST', '/admin/api/do-not-contact', { address: PERSON, reason: 'asked to be forgotten' })).status, 200);
    const refused = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: PERSON, body: 'One more thing' } });
    assert.equal(refused.status, 403, 'refused, and the refusal stored with the number');
    assert.ok((await everyRow()).some(([, text]) => text.includes('3125550166')), 'before: the store holds the person');

    const res = await admin('POST', '/admin/api/erasure', { address: PERSON });
    assert.equal(res.status, 200, await res.clone().text());
    const receipt = await json<{ person: string; erased: Record<string, number>; keptOnDoNotContact: number }>(res);
    assert.match(receipt.person, /^erased:[0-9a-f]{64}$/);
    assert.equal(receipt.erased.messages, 2, 'the text to them and the text from them');
    assert.equal(receipt.erased.calls, 1);
    assert.equal(receipt.erased.recordings, 1);
    assert.equal(receipt.erased.contactRefusals, 1, 'the refused text, as stored for the operator');
    assert.ok((receipt.erased.deadLetters ?? 0) >= 1);
    assert.equal(receipt.keptOnDoNotContact, 1);
    assert.ok(!JSON.stringify(receipt).includes('3125550166'), 'the receipt names them by the digest only');

    // No table holds the number any more, in any form; the other person's text is still there.
    const after = await everyRow();
    assert.deepEqual(after.filter(([, text]) => text.includes('3125550166')).map(([table]) => table), []);
    assert.ok(after.some(([table, text]) => table === 'messages' && text.includes('I stay')));
    assert.ok(!existsSync(wav), 'the recording file is gone');
    // Nor any API.
    const conversations = await json<{ conversations: { counterpart?: string }[] }>(await t.call('GET', '/api/v1/conversations', { token: agent.securityToken }));
    assert.ok(!JSON.stringify(conversations).includes('3125550166'));
    assert.equal((await t.call('GET', `/api/v1/calls/${callSid}`, { token: agent.securityToken })).status, 404);
    const listed = await json<{ entries: { address: string }[] }>(await admin('GET', '/admin/api/do-not-contact'));
    assert.deepEqual(listed.entries.map((e) => e.address), [receipt.person], 'still not to be contacted, by digest');
    const again = await json<{ erased: Record<string, number> }>(await admin('POST', '/admin/api/erasure', { address: PERSON }));
    assert.ok(Object.values(again.erased).every((n) => n === 0), 'a second erasure finds nothing');
  });

  it('bad input gets the contract error; only the operator may erase', async () => {
    const bad = await admin('POST', '/admin/api/erasure', { address: 'someone' });
    assert.equal(bad.status, 400);
    assert.equal((await json<{ code: string }>(bad)).code, 'VALIDATION_FAILED');
    assert.equal((await admin('POST', '/admin/api/erasure', {})).status, 400);
    assert.equal((await t.call('POST', '/admin/api/erasure', { json: { address: PERSON } })).status, 401);
    assert.equal((await t.call('POST', '/admin/api/erasure', { token: t.teamToken, json: { address: PERSON } })).status, 403);
  });
});
