import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startAuthorizationServer, type TestAuthorizationServer } from '../helpers/authorization-server.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '@switchboard/runtime/testing';

const AGENT = 'support-bot';
const CUSTOMER = '+14155550142';
const CALLER = '+14155550123';

describe('an agent provisioned again under a used agentId starts empty, and no earlier token acts for it', () => {
  let as: TestAuthorizationServer;
  let t: TestGateway;
  before(async () => {
    as = await startAuthorizationServer([{ clientId: 'old-app', agentId: AGENT, scope: 'switchboard:read switchboard:send' }], ['switchboard:read', 'switchboard:send']);
    t = await startTestGateway({ VOICE_MODE: 'relay', OAUTH_AUTHORIZATION_SERVERS: as.issuer, OAUTH_CLOCK_SKEW_SECONDS: 0 });
  });
  after(async () => {
    await t?.close();
    await as?.close();
  });

  const get = (path: string, token: string) => t.call('GET', path, { token });
  const json = async <T>(res: Response) => (await res.json()) as T;
  const countOf = async (table: string) => (await t.gateway.runtime.inspect.stored.rows<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE agent_id = '${AGENT}'`))[0]!.n;

  it('deprovision, provision the same id: conversations, calls, transcripts, the recording, dead letters and idempotent answers are gone; the old static and access tokens answer 401', async () => {
    // The first owner: a message out with an Idempotency-Key, a message in that nobody takes (a dead letter), a recorded call.
    const old = await provisionAgent(t, AGENT, ['sms', 'voice'], { recordCalls: true, greeting: 'Hello, this call is recorded.' });
    const keyed = { token: old.securityToken, headers: { 'idempotency-key': 'order-1' }, json: { channel: 'sms', to: CUSTOMER, body: 'Your order 1 ships today' } };
    const sent = await t.call('POST', '/api/v1/send-message', keyed);
    assert.equal(sent.status, 200, await sent.clone().text());
    const { messageId: oldMessageId } = await json<{ messageId: string }>(sent);
    assert.equal((await t.sim.inbound.sms({ agentId: AGENT, from: CUSTOMER, to: old.channels.sms!.address, body: 'my card is 4111…' })).status, 200);
    const deadLetters = () => get(`/admin/api/dead-letters?agentId=${AGENT}`, t.orchestratorToken).then((r) => json<{ deadLetters: unknown[] }>(r));
    await eventually(async () => (await deadLetters()).deadLetters.length > 0, { timeoutMs: 15_000, intervalMs: 50, message: 'the dead letter' });

    const call = await t.sim.phone.call({ agentId: AGENT, from: CALLER, to: old.channels.voice!.address, mode: 'relay', script: { steps: ['I would like to leave a message.'] } });
    const { callSid, errors } = await call.done;
    assert.deepEqual(errors, []);
    const recorded = await eventually(
      async () => {
        const body = await json<{ recording: { url: string } | null; transcript: unknown[] }>(await get(`/api/v1/calls/${callSid}`, old.securityToken));
        return body.recording ? body : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 50, message: 'the recording' },
    );
    assert.ok(recorded.transcript.length > 0, 'the call has a transcript');
    assert.equal((await get(`/api/v1/calls/${callSid}/recording`, old.securityToken)).status, 200);
    const [row] = await t.gateway.runtime.inspect.stored.rows<{ recording_file: string }>(`SELECT recording_file FROM calls WHERE call_sid = '${callSid}'`);
    const wav = join(t.dataDir, 'recordings', row!.recording_file);
    assert.ok(existsSync(wav), 'the WAV is stored');

    const oldAccess = await as.token('old-app', t.url, 'switchboard:read');
    const conversations = await json<{ conversations: { conversationId: string }[] }>(await get('/api/v1/conversations', oldAccess));
    assert.ok(conversations.conversations.length > 0, 'the access token reads the first owner’s conversations');
    const conversationId = conversations.conversations[0]!.conversationId;

    const usage = Number(await countOf('usage_records'));
    assert.ok(usage > 0);

    // Deprovisioned, then provisioned again under the same id (once the clock is past the old access token's second).
    assert.equal((await t.call('POST', '/api/v1/deprovision', { token: old.securityToken, json: {} })).status, 200);
    const { iat } = JSON.parse(Buffer.from(oldAccess.split('.')[1]!, 'base64url').toString()) as { iat: number };
    await eventually(async () => Math.floor(Date.now() / 1000) > iat, { timeoutMs: 15_000, intervalMs: 50, message: 'a new second' });
    const fresh = await provisionAgent(t, AGENT, ['sms', 'voice']);

    // The new owner finds nothing of the first.
    assert.deepEqual((await json<{ conversations: unknown[] }>(await get('/api/v1/conversations', fresh.securityToken))).conversations, []);
    assert.equal((await get(`/api/v1/conversations/${conversationId}`, fresh.securityToken)).status, 404);
    assert.deepEqual((await json<{ calls: unknown[] }>(await get('/api/v1/calls', fresh.securityToken))).calls, []);
    for (const path of [`/api/v1/calls/${callSid}`, `/api/v1/calls/${callSid}/recording`, `/admin/api/calls/${callSid}/recording`]) {
      const res = await get(path, path.startsWith('/admin') ? t.orchestratorToken : fresh.securityToken);
      assert.deepEqual([res.status, (await json<{ code: string }>(res)).code], [404, 'NOT_FOUND'], path);
    }
    assert.equal(existsSync(wav), false, 'the WAV file is deleted');
    assert.deepEqual((await json<{ messages: unknown[] }>(await get('/api/v1/waiting-messages', fresh.securityToken))).messages, []);
    assert.deepEqual((await deadLetters()).deadLetters, []);
    assert.deepEqual((await json<{ messages: unknown[] }>(await get(`/admin/api/messages?agentId=${AGENT}`, t.orchestratorToken))).messages, []);
    // The same Idempotency-Key and body from the new owner is a new send, not the first owner's answer.
    const again = await t.call('POST', '/api/v1/send-message', { ...keyed, token: fresh.securityToken });
    assert.equal(again.status, 200);
    assert.notEqual((await json<{ messageId: string }>(again)).messageId, oldMessageId);
    for (const table of ['calls', 'dead_letters', 'contact_links', 'tasks']) assert.equal(Number(await countOf(table)), 0, table);
    assert.equal(Number(await countOf('messages')), 1, 'only the new owner’s message');
    // Billing keeps its usage records (counts and costs, no content).
    assert.equal(Number(await countOf('usage_records')), usage + 1, 'the usage of the first owner is kept for billing');

    // No token of the first owner acts for the second.
    const staticRes = await get('/api/v1/conversations', old.securityToken);
    assert.deepEqual([staticRes.status, (await json<{ code: string }>(staticRes)).code], [401, 'UNAUTHORIZED']);
    const accessRes = await get('/api/v1/conversations', oldAccess);
    assert.deepEqual([accessRes.status, (await json<{ code: string }>(accessRes)).code], [401, 'UNAUTHORIZED']);
    assert.match(accessRes.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    // An access token issued now acts for the new agent.
    assert.equal((await get('/api/v1/conversations', await as.token('old-app', t.url, 'switchboard:read'))).status, 200);
  });
});
