import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AGENT_SUBJECT } from '@switchboard/runtime/internal';
import twilio from 'twilio';
import { connectMcp } from '../helpers/mcp-client.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '@switchboard/runtime/testing';

const CUSTOMER = '+14155550123';

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

  it('a misspelt field on send-message is 400 BAD_REQUEST naming it and the allowed ones; nothing is stored or sent', async () => {
    const agent = await provisionAgent(t, 'v-typo', ['sms']);
    const send = (json: Record<string, unknown>) => t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json });
    const logged = async () => ((await (await t.call('GET', '/admin/api/messages?agentId=v-typo', { token: t.orchestratorToken })).json()) as { messages: unknown[] }).messages.length;
    const sentBefore = t.sim.messages().length;
    const allowed = ['agentId', 'channel', 'to', 'conversationId', 'body', 'template', 'subject', 'html', 'mediaUrls', 'marketing'];
    const typo = await send({ channel: 'sms', to: CUSTOMER, bodyy: 'hello' });
    const body = (await typo.json()) as { error: string; code: string; details: { field: string; message: string; allowed?: string[] }[] };
    assert.equal(typo.status, 400);
    assert.equal(body.code, 'BAD_REQUEST');
    assert.equal(body.error, `Unknown field bodyy in body; allowed: ${allowed.join(', ')}.`);
    assert.deepEqual(body.details[0], { field: 'bodyy', message: `bodyy is not a field here; allowed: ${allowed.join(', ')}`, allowed });
    const channnel = await errorOf(await send({ channnel: 'sms', to: CUSTOMER, body: 'hello' }));
    assert.deepEqual([channnel.status, channnel.code], [400, 'BAD_REQUEST']);
    assert.match(channnel.error, /^Unknown field channnel in body; allowed: agentId, channel, /);
    // A complete send with one field too many went out before; now nothing does.
    const extra = await errorOf(await send({ channel: 'sms', to: CUSTOMER, body: 'hello', priority: 'high' }));
    assert.deepEqual([extra.status, extra.code], [400, 'BAD_REQUEST']);
    assert.match(extra.error, /Unknown field priority/);
    assert.equal(t.sim.messages().length, sentBefore, 'the provider received nothing');
    assert.equal(await logged(), 0, 'nothing was stored');
    assert.equal((await send({ channel: 'sms', to: CUSTOMER, body: 'hello' })).status, 200, 'the same send without the extra field goes out');
    assert.equal(t.sim.messages().length, sentBefore + 1);
  });

  it('unknown fields never reach the bus: provision and limits with extra fields are refused before any operation', async () => {
    const seen: string[] = [];
    // A listener beside the actors: it records every agent operation and never answers, so the actor's reply wins.
    const spy = t.gateway.runtime.inspect.bus.subscribe(`${AGENT_SUBJECT}.>`, (_data, subject) => {
      seen.push(subject);
      return new Promise(() => undefined);
    });
    try {
      const created = await errorOf(await provision({ agentId: 'v-strip', displayName: 'x', channels: ['line'], favouriteColour: 'teal', nested: JSON.parse(nested(20)) }));
      assert.deepEqual([created.status, created.code], [400, 'BAD_REQUEST']);
      assert.match(created.error, /^Unknown fields favouriteColour, nested in body; allowed: agentId, displayName, channels, country, /);
      const limits = await t.call('PUT', '/admin/api/agents/v-typo/limits', { token: t.orchestratorToken, json: { limits: { actionsPerDay: 5, colour: 1 } } });
      const refused = (await limits.json()) as { code: string; error: string; details: { field: string }[] };
      assert.deepEqual([limits.status, refused.code], [400, 'BAD_REQUEST']);
      assert.match(refused.error, /^Unknown field colour in limits; allowed: actionsPerMinute, /);
      assert.equal(refused.details[0]!.field, 'limits/colour');
      assert.deepEqual(seen.filter((s) => s.endsWith('.provision') || s.endsWith('.setLimits')), []);
    } finally {
      spy.unsubscribe();
    }
    const agents = await t.gateway.runtime.inspect.stored.agents();
    assert.ok(!agents.some((a) => a.agentId === 'v-strip'), 'nothing stored from a refused request');
  });

  it('MCP: tool schemas close their arguments, and a call with a misspelt argument is a tool error naming it', async () => {
    const agent = await provisionAgent(t, 'v-mcp-typo', ['sms']);
    const sentBefore = t.sim.messages().length;
    const mcp = await connectMcp(t.url, 'streamable', agent.securityToken, 'v-mcp-typo');
    try {
      const { tools } = await mcp.client.listTools();
      assert.ok(tools.length >= 13);
      for (const tool of tools) assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
      const refused = await mcp.call('comms_send_message', { channnel: 'sms', to: CUSTOMER, body: 'hello' });
      assert.equal(refused.isError, true);
      assert.equal(refused.body.code, 'BAD_REQUEST');
      assert.match(String(refused.body.error), /^Unknown field channnel in arguments; allowed: agentId, channel, to, conversationId, body, template, subject, html, mediaUrls, marketing\.$/);
      const query = await mcp.call('comms_get_waiting_messages', { chanel: 'sms' });
      assert.deepEqual([query.isError, query.body.code], [true, 'BAD_REQUEST']);
      assert.match(String(query.body.error), /^Unknown field chanel in arguments; allowed: agentId, channel, limit\.$/);
      const ping = await mcp.call('comms_ping', { verbose: true });
      assert.deepEqual([ping.isError, ping.body.code], [true, 'BAD_REQUEST']);
      assert.equal(t.sim.messages().length, sentBefore, 'the provider received nothing');
      assert.equal((await mcp.call('comms_send_message', { channel: 'sms', to: CUSTOMER, body: 'hello' })).isError, false);
    } finally {
      await mcp.close();
    }
  });

  it('provider webhooks keep accepting fields the provider adds; a misspelt query cannot acknowledge what they stored', async () => {
    const agent = await provisionAgent(t, 'v-hook', ['sms', 'line']);
    const { credentials } = t.sim;
    // LINE: a JSON body with fields this build has never heard of, at the top and inside the event.
    const line = JSON.stringify({
      destination: credentials.line.botUserId,
      futureTopLevel: { rollout: 'beta' },
      events: [
        {
          type: 'message',
          message: { type: 'text', id: '500000000000000001', quoteToken: 'q'.repeat(20), text: 'line with extras', markAsReadToken: 'm1' },
          webhookEventId: '01JEXTRAFIELDS00000000000A',
          deliveryContext: { isRedelivery: false },
          timestamp: Date.now(),
          source: { type: 'user', userId: `U${'ef'.repeat(16)}` },
          replyToken: 'r'.repeat(32),
          mode: 'active',
          newEventField: [1, 2, 3],
        },
      ],
    });
    const lineRes = await t.call('POST', '/webhooks/v-hook/line', {
      body: line,
      headers: { 'content-type': 'application/json', 'x-line-signature': createHmac('sha256', credentials.line.channelSecret).update(line).digest('base64') },
    });
    assert.equal(lineRes.status, 200, await lineRes.clone().text());
    // Twilio: form parameters it added (AddOns, a future one) beside the usual ones.
    const url = `${t.gateway.publicBaseUrl}/webhooks/v-hook/sms`;
    const params = {
      MessageSid: `SM${'ab'.repeat(16)}`,
      AccountSid: credentials.twilio.accountSid,
      From: CUSTOMER,
      To: agent.channels.sms!.address,
      Body: 'sms with extras',
      NumMedia: '0',
      AddOns: '{"status":"successful","results":{}}',
      FutureTwilioField: 'x',
    };
    const smsRes = await t.call('POST', '/webhooks/v-hook/sms', {
      body: new URLSearchParams(params).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(credentials.twilio.authToken, url, params) },
    });
    assert.equal(smsRes.status, 200, await smsRes.clone().text());
    await eventually(async () => (await t.gateway.runtime.inspect.stored.waitingLetters('v-hook')) >= 2, { message: "v-hook's two waiting letters" });
    // waiting-messages acknowledges what it returns: a misspelt filter must not take every channel's letters.
    const typo = await errorOf(await t.call('GET', '/api/v1/waiting-messages?chanel=line', { token: agent.securityToken }));
    assert.deepEqual([typo.status, typo.code], [400, 'BAD_REQUEST']);
    assert.equal(typo.error, 'Unknown field chanel in query; allowed: agentId, channel, limit.');
    const waiting = (await (await t.call('GET', '/api/v1/waiting-messages', { token: agent.securityToken })).json()) as { messages: { body: string; channel: string }[] };
    assert.deepEqual(waiting.messages.map((m) => `${m.channel}: ${m.body}`).sort(), ['line: line with extras', 'sms: sms with extras']);
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
    // The bound is exact, and brackets inside strings do not count: at the bound the body is parsed,
    // and refused for its unknown fields rather than its depth.
    const atLimit = `{"agentId":"v-depth","displayName":"x","channels":["line"],"note":"${'{['.repeat(100)}","extra":${nested(31)}}`;
    const parsed = await errorOf(await t.call('POST', '/api/v1/provision', { ...orchestrator, body: atLimit }));
    assert.deepEqual([parsed.status, parsed.code], [400, 'BAD_REQUEST']);
    assert.match(parsed.error, /^Unknown fields note, extra in body/);
    const overLimit = `{"agentId":"v-depth2","displayName":"x","channels":["line"],"extra":${nested(32)}}`;
    assert.match((await errorOf(await t.call('POST', '/api/v1/provision', { ...orchestrator, body: overLimit }))).error, /deeper than 32 levels/);
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
      assert.match(String(refused.body.error), /deeper than 32 levels/);
      // Within the bound the arguments are checked, and the unknown one refused.
      const checked = await mcp.call('comms_provision_channels', { agentId: 'v-mcp', displayName: 'x', channels: ['line'], extra: nestedValue(10) });
      assert.equal(checked.isError, true);
      assert.match(String(checked.body.error), /^Unknown field extra in arguments/);
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
    const agents = await t.gateway.runtime.inspect.stored.agents();
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
