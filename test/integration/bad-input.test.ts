import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AGENT_SUBJECT } from '@switchboard/runtime/internal';
import { connectMcp } from '../helpers/mcp-client.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** JSON text nesting `depth` objects: `{"a":{"a":…1…}}`. */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** A JSON object nesting `depth` objects, built without recursion. */
function nestedValue(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 1 };
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

async function errorOf(res: Response): Promise<{ status: number; code: string; error: string }> {
  const body = (await res.json()) as { code: string; error: string };
  return { status: res.status, code: body.code, error: body.error };
}

/** Sends raw bytes and returns the status line's code. */
function rawStatus(port: number, payload: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(payload));
    let data = '';
    socket.on('data', (d) => {
      data += d.toString();
      const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
      if (m) {
        socket.destroy();
        resolve(Number(m[1]));
      }
    });
    socket.on('error', reject);
    socket.setTimeout(5000, () => reject(new Error('no answer')));
  });
}

describe('bad input gets a clear error, never a crash', () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway({ BODY_LIMIT_BYTES: 65_536 });
  });
  after(() => t.close());

  const provision = (json: unknown, headers?: Record<string, string>) => t.call('POST', '/api/v1/provision', { token: t.teamToken, json, ...(headers ? { headers } : {}) });

  it('malformed JSON is 400 BAD_REQUEST', async () => {
    const res = await t.call('POST', '/api/v1/provision', { token: t.teamToken, body: '{"agentId":', headers: { 'content-type': 'application/json' } });
    assert.deepEqual((({ status, code }) => ({ status, code }))(await errorOf(res)), { status: 400, code: 'BAD_REQUEST' });
  });

  it('a wrong content type is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await t.call('POST', '/api/v1/provision', { token: t.teamToken, body: 'agentId=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.deepEqual((({ status, code }) => ({ status, code }))(await errorOf(res)), { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('missing and malformed fields are 400 VALIDATION_FAILED naming the field', async () => {
    const missing = await errorOf(await provision({ agentId: 'v-1', channels: ['sms'] }));
    assert.equal(missing.status, 400);
    assert.equal(missing.code, 'VALIDATION_FAILED');
    assert.match(missing.error, /displayName is required/);
    const badChannel = await errorOf(await provision({ agentId: 'v-1', displayName: 'x', channels: ['pager'] }));
    assert.equal(badChannel.code, 'VALIDATION_FAILED');
    const badId = await errorOf(await provision({ agentId: '-bad id', displayName: 'x', channels: ['sms'] }));
    assert.match(badId.error, /agentId/);
    const notObject = await errorOf(await provision([1, 2]));
    assert.equal(notObject.code, 'VALIDATION_FAILED');
  });

  it('unknown fields are ignored', async () => {
    const res = await provision({ agentId: 'v-extra', displayName: 'x', channels: ['line'], favouriteColour: 'teal' });
    assert.equal(res.status, 201);
  });

  it('unknown fields stop at validation: the handler and the bus see only declared ones', async () => {
    const seen: { subject: string; data: Record<string, unknown> }[] = [];
    // A listener beside the actors: it records every agent operation and never answers, so the actor's reply wins.
    const spy = t.gateway.runtime.bus.subscribe(`${AGENT_SUBJECT}.>`, (data, subject) => {
      seen.push({ subject, data: data as Record<string, unknown> });
      return new Promise(() => undefined);
    });
    try {
      const created = await provision({ agentId: 'v-strip', displayName: 'x', channels: ['line'], favouriteColour: 'teal', nested: JSON.parse(nested(20)) });
      assert.equal(created.status, 201);
      const limits = await t.call('PUT', '/admin/api/agents/v-strip/limits', {
        token: t.orchestratorToken,
        json: { limits: { actionsPerDay: 5, colour: JSON.parse(nested(20)) }, extra: true },
      });
      assert.equal(limits.status, 200);
      const answer = (await limits.json()) as { overrides: Record<string, unknown> };
      assert.deepEqual(answer.overrides, { actionsPerDay: 5 });
      const provisioned = seen.find((s) => s.subject.endsWith('.provision'))!.data;
      assert.deepEqual(Object.keys(provisioned).sort(), ['agentId', 'channels', 'displayName']);
      const setLimits = seen.find((s) => s.subject.endsWith('.setLimits'))!.data;
      assert.deepEqual(setLimits.overrides, { actionsPerDay: 5 });
    } finally {
      spy.unsubscribe();
    }
  });

  it('a body nested deeper than 32 levels is 400 BAD_REQUEST before it is parsed, on every JSON route', async () => {
    const orchestrator = { token: t.orchestratorToken, headers: { 'content-type': 'application/json' } };
    const deep = nested(5000);
    const requests: [string, string, string][] = [
      ['POST', '/api/v1/provision', `{"displayName":"x","channels":["sms"],"extra":${deep}}`],
      ['POST', '/api/v1/send-message', `{"agentId":"v-extra","channel":"line","to":"U${'ab'.repeat(16)}","body":"hi","extra":${deep}}`],
      ['POST', '/api/v1/make-call', `{"agentId":"v-extra","to":"+14155550123","extra":${deep}}`],
      ['POST', '/api/v1/call-on-behalf', `{"agentId":"v-extra","target":"+14155550123","requesterPhone":"+14155550124","extra":${deep}}`],
      ['POST', '/api/v1/send-voice-message', `{"agentId":"v-extra","to":"+14155550123","text":"hi","extra":${deep}}`],
      ['PUT', '/admin/api/agents/v-extra/limits', `{"limits":{"actionsPerDay":1,"deep":${deep}}}`],
      ['POST', '/api/v1/provision', `[${'['.repeat(30_000)}${']'.repeat(30_000)}]`],
    ];
    for (const [method, path, body] of requests) {
      const res = await errorOf(await t.call(method, path, { ...orchestrator, body }));
      assert.deepEqual([res.status, res.code], [400, 'BAD_REQUEST'], `${method} ${path}: ${res.error}`);
      assert.match(res.error, /deeper than 32 levels/);
    }
    // The bound is exact, and brackets inside strings do not count.
    const atLimit = `{"agentId":"v-depth","displayName":"x","channels":["line"],"note":"${'{['.repeat(100)}","extra":${nested(31)}}`;
    assert.equal((await t.call('POST', '/api/v1/provision', { ...orchestrator, body: atLimit })).status, 201);
    const overLimit = `{"agentId":"v-depth2","displayName":"x","channels":["line"],"extra":${nested(32)}}`;
    assert.equal((await errorOf(await t.call('POST', '/api/v1/provision', { ...orchestrator, body: overLimit }))).code, 'BAD_REQUEST');
    assert.equal((await t.call('GET', '/health')).status, 200);
  });

  it('MCP tool input gets the same depth bound as a REST body', async () => {
    const deep = await t.gateway.app.invoke('POST', '/api/v1/provision', { kind: 'orchestrator' }, { displayName: 'x', channels: ['sms'], extra: nestedValue(10_000) }).then(
      () => undefined,
      (err: { code?: string; message?: string }) => err,
    );
    assert.equal(deep?.code, 'BAD_REQUEST', String(deep?.message));
    const mcp = await connectMcp(t.url, 'streamable', t.orchestratorToken);
    try {
      const refused = await mcp.call('comms_provision_channels', { agentId: 'v-mcp-deep', displayName: 'x', channels: ['line'], extra: nestedValue(40) });
      assert.equal(refused.isError, true);
      assert.equal(refused.body.code, 'BAD_REQUEST');
      const accepted = await mcp.call('comms_provision_channels', { agentId: 'v-mcp', displayName: 'x', channels: ['line'], extra: nestedValue(10) });
      assert.equal(accepted.isError, false, JSON.stringify(accepted.body));
    } finally {
      await mcp.close();
    }
  });

  it('a value outside a set of literals names the field and the allowed values, once', async () => {
    const res = await t.call('POST', '/api/v1/send-message', { token: t.teamToken, json: { agentId: 'v-extra', channel: 'fax', to: '+14155550123', body: 'hi' } });
    const body = (await res.json()) as { error: string; code: string; details: { field: string; message: string }[] };
    assert.equal(res.status, 400);
    assert.equal(body.code, 'VALIDATION_FAILED');
    assert.equal(body.error, 'Invalid body: channel must be one of sms, email, whatsapp, line.');
    assert.deepEqual(body.details, [{ field: 'channel', message: 'channel must be one of sms, email, whatsapp, line' }]);
    const channels = (await (await provision({ agentId: 'v-enum', displayName: 'x', channels: ['sms', 'pager'] })).json()) as typeof body;
    assert.deepEqual(channels.details, [{ field: 'channels/1', message: 'channels/1 must be one of sms, email, whatsapp, line, voice' }]);
    const nullable = (await (
      await t.call('PUT', '/admin/api/agents/v-extra/limits', { token: t.orchestratorToken, json: { limits: { actionsPerDay: 'many' } } })
    ).json()) as typeof body;
    assert.deepEqual(nullable.details, [{ field: 'limits/actionsPerDay', message: 'limits/actionsPerDay must be integer, or must be null' }]);
  });

  it('a callback URL must be https, or http to loopback outside production', async () => {
    const res = await errorOf(await provision({ agentId: 'v-cb', displayName: 'x', channels: ['line'], callbackUrl: 'http://example.com/hook' }));
    assert.equal(res.code, 'VALIDATION_FAILED');
    assert.match(res.error, /https/);
  });

  it('a body over the limit is 413 PAYLOAD_TOO_LARGE, by Content-Length and by streaming', async () => {
    const big = { agentId: 'v-big', displayName: 'x'.repeat(70_000), channels: ['sms'] };
    const res = await errorOf(await provision(big));
    assert.deepEqual([res.status, res.code], [413, 'PAYLOAD_TOO_LARGE']);
    const chunked = await rawStatus(
      t.gateway.port,
      `POST /api/v1/provision HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.teamToken}\r\nContent-Type: application/json\r\nContent-Length: 70000\r\n\r\n${'x'.repeat(70_000)}`,
    );
    assert.equal(chunked, 413);
    const agents = await t.gateway.runtime.store.agents.list();
    assert.ok(!agents.some((a) => a.agentId === 'v-big'), 'nothing stored from a refused request');
  });

  it('an aborted request does not crash the server', async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(t.gateway.port, '127.0.0.1', () => {
        socket.write(`POST /api/v1/provision HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.teamToken}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"agentId":`);
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    assert.equal((await t.call('GET', '/health')).status, 200);
  });

  it('an oversized Idempotency-Key is refused', async () => {
    const res = await errorOf(await provision({ agentId: 'v-key', displayName: 'x', channels: ['line'] }, { 'idempotency-key': 'k'.repeat(300) }));
    assert.equal(res.code, 'VALIDATION_FAILED');
  });
});
