import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectMcp } from '../helpers/mcp-client.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { capturingLogger } from '../helpers/capturing-logger.js';


const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

describe('what operators see in the log', () => {
  it('says at shutdown how many sessions and calls it closed', async () => {
    const { lines, logger } = capturingLogger('debug');
    const g = await startTestGateway({ LOG_LEVEL: 'debug' }, undefined, { logger });
    const mcp = await connectMcp(g.url, 'sse', g.teamToken);
    await g.close();
    await mcp.close(); // the SSE client would otherwise reconnect to the closed port forever
    const closed = lines.find((l) => String(l.msg).startsWith('shutdown: closed'));
    assert.equal(closed?.sessions, 1);
    assert.equal(closed?.calls, 0);
  });

  let t: TestGateway;
  let agent: { securityToken: string };
  const { lines, logger } = capturingLogger('debug');
  const requestLines = (reqId: string) => lines.filter((l) => l.msg === 'request' && l.reqId === reqId);

  before(async () => {
    t = await startTestGateway({ LOG_LEVEL: 'debug', SEND_MAX_ATTEMPTS: 2 }, undefined, { logger });
    agent = await provisionAgent(t, 'logged-agent', ['sms', 'voice']);
  });
  after(() => t.close());

  it('says what start-up did, step by step', () => {
    const steps = lines.filter((l) => String(l.msg).startsWith('start-up:')).map((l) => l.msg);
    assert.match(String(steps[0]), /^start-up: HTTP adapter (uws|node): \S/, 'first, which HTTP adapter and why');
    assert.deepEqual(steps.slice(1, 3), ['start-up: store open and migrated', 'start-up: runtime ready']);
    assert.ok(steps.some((s) => String(s).startsWith('start-up: listening')));
    assert.equal(steps.at(-1), 'start-up: ready');
    const loaded = lines.find((l) => l.msg === 'start-up: drivers loaded');
    assert.ok((loaded?.drivers as string[]).some((d) => d.startsWith('@switchboard/driver-twilio@')), String(loaded?.drivers));
  });

  it('logs one line per request with a request id that the response carries', async () => {
    const res = await t.call('GET', '/api/v1/channel-status', { token: agent.securityToken });
    assert.equal(res.status, 200);
    const reqId = res.headers.get('x-request-id');
    assert.match(reqId ?? '', /^[0-9a-f-]{36}$/);
    const logged = requestLines(reqId!);
    assert.equal(logged.length, 1);
    assert.equal(logged[0]!.level, LEVEL.info);
    assert.equal(logged[0]!.route, '/api/v1/channel-status');
    assert.equal(logged[0]!.agentId, 'logged-agent');
    assert.equal(logged[0]!.status, 200);
  });

  it('keeps a sane X-Request-Id from the caller and replaces one that is not', async () => {
    const kept = await t.call('GET', '/health', { headers: { 'x-request-id': 'trace-123.abc' } });
    assert.equal(kept.headers.get('x-request-id'), 'trace-123.abc');
    const replaced = await t.call('GET', '/health', { headers: { 'x-request-id': 'bad id\twith spaces' } });
    assert.notEqual(replaced.headers.get('x-request-id'), 'bad id\twith spaces');
  });

  it('logs health and metrics probes at debug, failures with their code, unmatched routes with their path', async () => {
    const probe = await t.call('GET', '/metrics');
    assert.equal(requestLines(probe.headers.get('x-request-id')!)[0]!.level, LEVEL.debug);

    const missing = await t.call('GET', '/api/v1/no-such-thing');
    const [unmatched] = requestLines(missing.headers.get('x-request-id')!);
    assert.equal(unmatched!.level, LEVEL.warn);
    assert.equal(unmatched!.route, 'unmatched');
    assert.equal(unmatched!.path, '/api/v1/no-such-thing');
    assert.equal(unmatched!.code, 'NOT_FOUND');

    const bad = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'fax', to: '+14155550123', body: 'x' } });
    const [invalid] = requestLines(bad.headers.get('x-request-id')!);
    assert.equal(invalid!.status, 400);
    assert.equal(invalid!.code, 'VALIDATION_FAILED');
    assert.equal(invalid!.agentId, 'logged-agent');
  });

  it('logs each failed provider attempt as it happens, with provider, agent, message id, attempt and its stack', async () => {
    t.sim.faults.add({ provider: 'twilio', status: 500, times: 2 });
    const res = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: '+14155550123', body: 'hello' } });
    assert.equal(res.status, 502);
    const attempts = lines.filter((l) => l.msg === 'provider send attempt failed');
    assert.deepEqual(
      attempts.map((l) => l.attempt),
      [1, 2],
    );
    for (const line of attempts) {
      // The provider's name, as in the metrics and SMS_ROUTES (a send may try several).
      assert.equal(line.provider, 'twilio');
      assert.equal(line.agentId, 'logged-agent');
      assert.match(String(line.messageId), /^msg/);
      const stack = String((line.err as { stack?: string }).stack);
      assert.doesNotMatch(stack.split('\n')[1] ?? '', /bus/, 'the stack starts at the failure, not at the bus');
    }
    assert.equal(attempts[0]!.messageId, attempts[1]!.messageId);
    const final = lines.find((l) => l.msg === 'request' && l.reqId === res.headers.get('x-request-id'));
    assert.equal(final!.level, LEVEL.error);
    assert.equal(final!.code, 'PROVIDER_ERROR');
  });

  it('follows a simulator phone call placed with ?wait=1 as it happens', async () => {
    const started = lines.length;
    const res = await fetch(`${t.sim.url}/_sim/phone/call?wait=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agentId: 'logged-agent', from: '+14155550123', to: '+12025550100', script: { steps: ['Please call me back.'] } }),
    });
    assert.equal(res.status, 200);
    const progress = lines.slice(started).filter((l) => String(l.msg).startsWith('simulator phone:')).map((l) => String(l.msg));
    assert.ok(progress.includes('simulator phone: call in-progress'), progress.join('\n'));
    assert.ok(progress.includes('simulator phone: caller said "Please call me back."'), progress.join('\n'));
    assert.ok(progress.some((m) => m.startsWith('simulator phone: agent said')), progress.join('\n'));
    assert.equal(progress.at(-1), 'simulator phone: call over');
  });
});
