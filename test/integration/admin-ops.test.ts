import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '@switchboard/runtime/testing';

const CUSTOMER = '+14155550142';

describe('admin API: agent detail, message log, dead letters, block and unblock', () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  before(async () => {
    t = await startTestGateway();
    agent = await provisionAgent(t, 'ops-1', ['sms', 'email']);
    const sent = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: CUSTOMER, body: 'hello out' } });
    assert.equal(sent.status, 200);
    // No live session and no callback URL: the inbound message becomes a dead letter.
    const inbound = await t.sim.inbound.sms({ agentId: 'ops-1', from: CUSTOMER, to: agent.channels.sms!.address, body: 'hello in' });
    assert.equal(inbound.status, 200);
    // The dead letter is written after the webhook's 200: delivery starts once the message is stored.
    await eventually(
      async () => {
        const pending = (await (await t.call('GET', '/admin/api/dead-letters?status=pending', { token: t.orchestratorToken })).json()) as { deadLetters: unknown[] };
        return pending.deadLetters.length > 0;
      },
      { message: 'a pending dead letter' },
    );
  });
  after(() => t.close());
  const get = (path: string, token = t.orchestratorToken) => t.call('GET', path, { token });

  it('agent detail lists channels, limits, usage, messages and dead letters', async () => {
    const res = await get('/admin/api/agents/ops-1');
    assert.equal(res.status, 200);
    const body = await res.json() as any;
    assert.equal(body.agent.agentId, 'ops-1');
    assert.equal(body.agent.channels.sms, agent.channels.sms!.address);
    assert.equal(body.usage.today.actions, 1);
    assert.ok(body.limits.actionsPerDay > 0);
    assert.deepEqual(body.messages.map((m: { direction: string }) => m.direction).sort(), ['inbound', 'outbound']);
    assert.equal(body.deadLetters.length, 1);
    assert.equal(body.deadLetters[0].reason, 'agent_offline');
    assert.equal((await get('/admin/api/agents/nobody')).status, 404);
  });

  it('filters the message log', async () => {
    const all = await (await get('/admin/api/messages')).json() as any;
    assert.equal(all.messages.length, 2);
    const out = await (await get('/admin/api/messages?direction=outbound&channel=sms&agentId=ops-1')).json() as any;
    assert.equal(out.messages.length, 1);
    assert.equal(out.messages[0].body, 'hello out');
    const none = await (await get(`/admin/api/messages?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).json() as any;
    assert.equal(none.messages.length, 0);
    assert.equal((await (await get('/admin/api/messages?limit=1')).json() as any).messages.length, 1);
    for (const bad of ['limit=0', 'limit=abc', 'direction=sideways', 'channel=fax', 'since=yesterday', 'agentId=%20bad']) {
      const res = await get(`/admin/api/messages?${bad}`);
      assert.equal(res.status, 400, bad);
      assert.equal((await res.json() as any).code, 'VALIDATION_FAILED');
    }
  });

  it('filters dead letters by pending and acknowledged', async () => {
    assert.equal((await (await get('/admin/api/dead-letters?status=pending')).json() as any).deadLetters.length, 1);
    assert.equal((await (await get('/admin/api/dead-letters?status=acknowledged')).json() as any).deadLetters.length, 0);
    assert.equal((await get('/admin/api/dead-letters?status=whatever')).status, 400);
    const dash = await (await get('/admin/api/dashboard')).json() as any;
    assert.equal(dash.deadLetters.pending, 1);
    assert.equal(dash.series.messagesToday.inbound, 1);
    assert.equal(dash.series.messagesToday.outbound, 1);
    assert.ok(dash.alerts.some((a: { message: string }) => /dead letter/.test(a.message)));
  });

  it('blocks and unblocks a channel', async () => {
    const block = await t.call('POST', '/admin/api/agents/ops-1/blocked-channels', { token: t.orchestratorToken, json: { blockedChannels: ['sms'] } });
    assert.equal(block.status, 200);
    const refused = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: CUSTOMER, body: 'blocked?' } });
    assert.equal(refused.status, 403);
    assert.deepEqual((await (await get('/admin/api/agents/ops-1')).json() as any).agent.blockedChannels, ['sms']);
    const unblock = await t.call('POST', '/admin/api/agents/ops-1/blocked-channels', { token: t.orchestratorToken, json: { blockedChannels: [] } });
    assert.equal(unblock.status, 200);
  });

  it('deprovisions an agent and returns its channels', async () => {
    await provisionAgent(t, 'ops-gone', ['sms']);
    const res = await t.call('DELETE', '/admin/api/agents/ops-gone', { token: t.orchestratorToken });
    assert.equal(res.status, 200);
    assert.equal((await get('/admin/api/agents/ops-gone')).status, 404);
    assert.equal((await t.call('DELETE', '/admin/api/agents/ops-gone', { token: t.orchestratorToken })).status, 404);
    assert.equal((await t.call('DELETE', '/admin/api/agents/ops-1', { token: t.teamToken })).status, 403);
  });

  it('needs the orchestrator token', async () => {
    for (const path of ['/admin/api/agents/ops-1', '/admin/api/messages', '/admin/api/dead-letters']) {
      assert.equal((await t.call('GET', path)).status, 401, path);
      assert.equal((await get(path, t.teamToken)).status, 403, path);
      assert.equal((await get(path, agent.securityToken)).status, 403, path);
    }
  });
});
