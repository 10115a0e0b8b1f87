import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { mcpRouteDocs } from '@switchboard/gateway';
import twilio from 'twilio';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

interface Media {
  schema: Record<string, unknown> & { examples?: unknown[] };
  example?: unknown;
}
interface Operation {
  description?: string;
  security?: unknown[];
  responses: Record<string, { description: string; content?: Record<string, Media> }>;
}

/** The status line's code of a WebSocket upgrade request sent over a raw socket. */
function upgradeStatus(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      const lines = [
        `GET ${path} HTTP/1.1`,
        `Host: 127.0.0.1:${port}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Version: 13',
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    socket.once('data', (data) => {
      socket.destroy();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data.toString())?.[1] ?? 0));
    });
    socket.on('error', reject);
    socket.setTimeout(5000, () => reject(new Error('no answer to the upgrade')));
  });
}

describe('OpenAPI document', () => {
  let t: TestGateway;
  let doc: { openapi: string; paths: Record<string, Record<string, Operation>> };
  before(async () => {
    t = await startTestGateway();
    doc = (await (await t.call('GET', '/api/v1/openapi.json')).json()) as typeof doc;
  });
  after(() => t.close());

  it('passes a real OpenAPI 3.1 validator', async () => {
    assert.equal(doc.openapi, '3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  it("lints with zero errors under Redocly's recommended rules", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    assert.deepEqual(errors, []);
  });

  it('requires no parameter that has a default, so a client may leave limit and wait out', async () => {
    type Parameter = { name: string; in: string; required: boolean; schema: { default?: unknown } };
    const parameters = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) => ((op as { parameters?: Parameter[] }).parameters ?? []).map((p) => ({ at: `${method.toUpperCase()} ${path} ${p.name}`, ...p }))),
    );
    const defaulted = parameters.filter((p) => p.schema.default !== undefined);
    assert.deepEqual(defaulted.filter((p) => p.required).map((p) => p.at), []);
    // The ones issue 32 named are among them: documented with their default, and not required.
    for (const at of [
      'GET /api/v1/waiting-messages limit',
      'GET /api/v1/inbox limit',
      'GET /api/v1/conversations limit',
      'GET /api/v1/calls limit',
      'GET /api/v1/conversations/{conversationId}/reply wait',
    ]) {
      assert.ok(defaulted.some((p) => p.at === at), `${at} is documented with its default`);
    }
    // And the server agrees: the routes answer without them.
    const agent = await provisionAgent(t, 'openapi-defaults', ['sms']);
    for (const path of ['/api/v1/waiting-messages', '/api/v1/inbox', '/api/v1/conversations', '/api/v1/calls']) {
      const res = await t.call('GET', path, { token: agent.securityToken });
      assert.equal(res.status, 200, `${path}: ${await res.text()}`);
    }
  });

  it('lists exactly the registered routes, and every route in it exists', async () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const registered = [...t.gateway.app.routes, ...mcpRouteDocs].filter((r) => !r.hidden).map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    assert.deepEqual(documented.sort(), registered.sort());
    for (const entry of documented) {
      const [method, template] = entry.split(' ') as [string, string];
      const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'pool' ? 'phone' : 'probe-agent'));
      const controller = new AbortController();
      const res = await fetch(`${t.url}${path}`, { method, headers: { authorization: `Bearer ${t.orchestratorToken}` }, signal: controller.signal });
      const streaming = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
      if (streaming) controller.abort();
      const body = streaming ? '{}' : (await res.text()) || '{}';
      assert.notEqual(res.status, 405, `${entry} answers 405`);
      if (res.status === 404) assert.ok(!String(JSON.parse(body).error).startsWith('No route'), `${entry} is not served`);
    }
  });

  it('documents the request schema that validates the route', async () => {
    const provision = doc.paths['/api/v1/provision']!.post as unknown as {
      requestBody: { content: { 'application/json': { schema: { required: string[] } } } };
      security: unknown[];
    };
    assert.deepEqual(provision.requestBody.content['application/json'].schema.required.sort(), ['channels', 'displayName']);
    assert.deepEqual(provision.security, [{ bearer: [] }]);
    assert.deepEqual(doc.paths['/health']!.get!.security, [], 'public, and says so');
  });

  it('documents the voice WebSocket as the GET that upgrades, and that path is the real socket', async () => {
    const socket = doc.paths['/webhooks/{agentId}/voice-ws']?.get;
    assert.ok(socket, 'the voice WebSocket is in the document');
    assert.ok(socket.responses['101'], 'its success is 101 Switching Protocols');
    assert.deepEqual(socket.security, [], 'signed by the provider, no bearer token');
    for (const frame of ['setup', 'prompt', 'interrupt', 'dtmf', '`text`', '`play`', '`end`', 'connected', 'start', 'media', 'mark', 'stop', 'clear']) {
      assert.ok(socket.description?.includes(frame), `the description names the ${frame} frame`);
    }
    const plain = await t.call('GET', '/webhooks/probe-agent/voice-ws');
    assert.equal(plain.status, 426);
    assert.equal(plain.headers.get('upgrade'), 'websocket');
    assert.equal(((await plain.json()) as { code: string }).code, 'UPGRADE_REQUIRED');
    const authToken = (t.sim as unknown as { credentials: { twilio: { authToken: string } } }).credentials.twilio.authToken;
    const path = '/webhooks/probe-agent/voice-ws';
    const signature = twilio.getExpectedTwilioSignature(authToken, `${t.gateway.publicBaseUrl.replace(/^http/, 'ws')}${path}`, {});
    assert.equal(await upgradeStatus(t.gateway.port, path, { 'X-Twilio-Signature': signature }), 101);
    assert.equal(await upgradeStatus(t.gateway.port, path, { 'X-Twilio-Signature': 'forged' }), 403);
  });

  it('documents every JSON request body as closed, and the server refuses what the document does not list', async () => {
    type Schema = { type?: string; properties?: Record<string, Schema>; additionalProperties?: unknown; items?: Schema; anyOf?: Schema[] };
    /** Paths of the object schemas in `schema` that do not refuse unknown fields. */
    const open = (schema: Schema, at: string): string[] => [
      ...(schema.properties && schema.additionalProperties !== false ? [at] : []),
      ...Object.entries(schema.properties ?? {}).flatMap(([name, child]) => open(child, `${at}.${name}`)),
      ...(schema.items ? open(schema.items, `${at}[]`) : []),
      ...(schema.anyOf ?? []).flatMap((branch, i) => open(branch, `${at}|${i}`)),
    ];
    const bodies = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops as Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>).flatMap(([method, op]) => {
        const schema = op.requestBody?.content['application/json']?.schema;
        return schema ? [{ route: `${method.toUpperCase()} ${path}`, schema }] : [];
      }),
    );
    assert.ok(bodies.length >= 15, `${bodies.length} JSON request bodies`);
    // The MCP transports read JSON-RPC themselves; every other body is checked by the pipeline.
    const checked = bodies.filter((b) => !/ \/(messages|mcp)$/.test(b.route));
    assert.deepEqual(checked.flatMap((b) => open(b.schema, b.route)), []);
    const send = doc.paths['/api/v1/send-message']!.post as unknown as { requestBody: { content: Record<string, { schema: Schema }> } };
    const listed = Object.keys(send.requestBody.content['application/json']!.schema.properties!);
    const res = await t.call('POST', '/api/v1/send-message', { token: t.orchestratorToken, json: { channel: 'sms', to: '+14155550123', body: 'x', bodyy: 'x' } });
    const refused = (await res.json()) as { code: string; details: { allowed?: string[] }[] };
    assert.deepEqual([res.status, refused.code], [400, 'BAD_REQUEST']);
    assert.deepEqual(refused.details[0]!.allowed, listed, 'the allowed fields are the documented ones');
  });

  it("documents each webhook's 200 body as the contract gives it, and the real answers match", async () => {
    const ok = (path: string) => doc.paths[path]!.post!.responses['200']!.content!;
    const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';
    for (const path of ['/webhooks/{agentId}/sms', '/webhooks/{agentId}/whatsapp', '/webhooks/{agentId}/call-status', '/webhooks/voice/status']) {
      assert.equal(ok(path)['text/xml']?.example, EMPTY_TWIML, path);
    }
    assert.deepEqual(ok('/webhooks/{agentId}/email')['application/json']?.example, { ok: true });
    assert.deepEqual(ok('/webhooks/{agentId}/email')['application/json']?.schema.required, ['ok']);
    assert.deepEqual(ok('/webhooks/{agentId}/line')['application/json']?.example, {});
    assert.equal(ok('/webhooks/{agentId}/line')['application/json']?.schema.additionalProperties, false);
    for (const path of ['/webhooks/{agentId}/voice', '/webhooks/{agentId}/outbound-voice']) {
      const twiml = ok(path)['text/xml']!;
      assert.match(String(twiml.example), /<Connect><ConversationRelay url="wss:\/\/[^"]+\/voice-ws/, path);
      assert.match(String(twiml.schema.description), /<Connect><Stream/);
    }
    for (const path of ['/webhooks/{agentId}/sms', '/webhooks/{agentId}/email', '/webhooks/{agentId}/line', '/webhooks/{agentId}/voice']) {
      assert.equal(ok(path)['text/plain']?.schema.maxLength, 0, `${path} documents the blocked channel's empty answer`);
    }

    // The route probe above regenerated the team token; the orchestrator's provisions as well.
    const provisioned = await t.call('POST', '/api/v1/provision', {
      token: t.orchestratorToken,
      json: { agentId: 'doc-inbox', displayName: 'Docs', channels: ['sms', 'whatsapp', 'email', 'line'] },
    });
    assert.equal(provisioned.status, 201);
    const agent = (await provisioned.json()) as { channels: Record<string, { address: string }> };
    const sms = await t.sim.inbound.sms({ agentId: 'doc-inbox', from: '+14155550123', to: agent.channels.sms!.address, body: 'hi' });
    assert.match(sms.headers['content-type'] ?? '', /^text\/xml/);
    assert.equal(sms.body, ok('/webhooks/{agentId}/sms')['text/xml']!.example);
    const wa = await t.sim.inbound.whatsapp({ agentId: 'doc-inbox', from: '+14155550123', to: agent.channels.whatsapp!.address, body: 'hi' });
    assert.equal(wa.body, ok('/webhooks/{agentId}/whatsapp')['text/xml']!.example);
    const mail = await t.sim.inbound.email({ agentId: 'doc-inbox', from: 'a@example.com', to: agent.channels.email!.address, subject: 's', text: 'x' });
    assert.match(mail.headers['content-type'] ?? '', /^application\/json/);
    assert.deepEqual(JSON.parse(mail.body), ok('/webhooks/{agentId}/email')['application/json']!.example);
    const line = await t.sim.inbound.line({ agentId: 'doc-inbox', userId: `U${'ab'.repeat(16)}`, text: 'hi' });
    assert.deepEqual(JSON.parse(line.body), ok('/webhooks/{agentId}/line')['application/json']!.example);
  });
});
