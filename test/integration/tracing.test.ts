import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@switchboard/runtime/testing';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { startServerProcess } from '../helpers/process.js';

const CUSTOMER = '+14155550142';
const CLUSTER = process.env.SWITCHBOARD_TEST_CLUSTER === '1';

/** A span as OTLP/HTTP JSON carries it, with the attributes of its resource. */
interface ExportedSpan {
  links?: { traceId: string; spanId: string }[];
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
type OtlpAttributes = { key: string; value: OtlpValue }[] | undefined;

function attributesOf(list: OtlpAttributes): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue]));
}

/** A local OTLP/HTTP receiver: every JSON body posted to /v1/traces, its spans flattened. */
async function startOtlpReceiver(): Promise<{ url: string; spans: ExportedSpan[]; posts: () => number; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  let posts = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(404).end();
        return;
      }
      posts++;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { resource: { attributes: OtlpAttributes }; scopeSpans: { spans: (Omit<ExportedSpan, 'attributes' | 'resource'> & { attributes: OtlpAttributes })[] }[] }[];
      };
      for (const { resource, scopeSpans } of body.resourceSpans) {
        for (const { spans: list } of scopeSpans) {
          for (const span of list) spans.push({ ...span, attributes: attributesOf(span.attributes), resource: attributesOf(resource.attributes) });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    posts: () => posts,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The standard variables, as an operator sets them; the batch exported every 50 ms so the test need not wait. */
const OTEL_ENV = (endpoint: string): Record<string, string> => ({
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_SERVICE_NAME: 'switchboard-under-test',
  OTEL_BSP_SCHEDULE_DELAY: '50',
});

describe('OpenTelemetry traces (OTEL_* configured)', () => {
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let t: TestGateway;
  let receiver: CallbackReceiver;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  const saved: Record<string, string | undefined> = {};

  before(async () => {
    otlp = await startOtlpReceiver();
    // The servers of this test run in this process: the variables are this process's environment.
    for (const [name, value] of Object.entries(OTEL_ENV(otlp.url))) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    t = await startTestGateway();
    let secret: string | undefined;
    receiver = await startCallbackReceiver(() => secret);
    agent = await provisionAgent(t, 'traced', ['sms']);
    const set = await t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl: receiver.url } });
    assert.equal(set.status, 200);
    secret = ((await set.json()) as { signingSecret: string }).signingSecret;
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
    await otlp?.close();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("a send with the agent's traceparent is one trace under the agent's span: the request, the provider call, the store, and the signed status callback", async () => {
    const traceId = randomBytes(16).toString('hex');
    const agentSpan = randomBytes(8).toString('hex');
    const res = await t.call('POST', '/api/v1/send-message', {
      token: agent.securityToken,
      json: { channel: 'sms', to: CUSTOMER, body: 'traced' },
      headers: { traceparent: `00-${traceId}-${agentSpan}-01` },
    });
    assert.equal(res.status, 200, await res.clone().text());
    const { messageId } = (await res.json()) as { messageId: string };

    // The simulator reports the SMS delivered; its status reaches the agent's callback URL, signed, with a traceparent of this trace.
    const status = await eventually(() => receiver.events.find((e) => e.event.type === 'message.status' && e.event.data.messageId === messageId), {
      timeoutMs: 20_000,
      message: () => `a message.status callback for ${messageId}; got ${receiver.events.map((e) => e.event.type).join(', ')}`,
    });
    const header = status.headers.traceparent;
    assert.match(header ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/, 'the callback carries a traceparent');
    const [, callbackTrace, callbackSpan] = header!.split('-');
    assert.equal(callbackTrace, traceId, "the status callback continues the send's trace");

    const inTrace = () => otlp.spans.filter((s) => s.traceId === traceId);
    const names = () => inTrace().map((s) => s.name);
    const spans = await eventually(
      () => {
        const found = inTrace();
        const has = (test: (s: ExportedSpan) => boolean) => found.some(test);
        return has((s) => s.name === 'POST /api/v1/send-message') && has((s) => s.name === 'provider send') && has((s) => s.spanId === callbackSpan) && has((s) => s.name === 'store commit') && found;
      },
      { timeoutMs: 20_000, message: () => `the spans of trace ${traceId} at the receiver (${otlp.posts()} posts); got ${names().join(', ')}` },
    );
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const rest = spans.find((s) => s.name === 'POST /api/v1/send-message')!;
    assert.equal(rest.parentSpanId, agentSpan, "the agent's span is the REST request's parent");
    assert.equal(rest.kind, 2, 'a server span');
    assert.equal(rest.attributes['http.response.status_code'], 200);
    assert.equal(rest.resource['service.name'], 'switchboard-under-test', 'OTEL_SERVICE_NAME names the service');
    // Every span of the trace leads up to the REST request (the agent's span is the only parent outside it).
    for (const span of spans) {
      let at: ExportedSpan | undefined = span;
      const path: string[] = [];
      while (at && at !== rest) {
        path.push(at.name);
        at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined;
      }
      assert.ok(at === rest || span === rest, `${span.name} is under the REST request (path ${path.join(' < ')})`);
    }
    const provider = spans.find((s) => s.name === 'provider send')!;
    assert.equal(provider.attributes['switchboard.message_id'], messageId);
    assert.equal(provider.kind, 3, 'a client span');
    const callback = byId.get(callbackSpan!)!;
    assert.equal(callback.name, 'callback POST');
    assert.equal(callback.attributes['http.response.status_code'], 200);
    // The provider's receipt came on a webhook, a request (and trace) of its own: the callback links it.
    const [link] = callback.links ?? [];
    assert.ok(link, 'the status callback links the receipt that brought it');
    const receiptPath = (): ExportedSpan[] => {
      const path: ExportedSpan[] = [];
      for (let id: string | undefined = link.spanId; id; ) {
        const at = otlp.spans.find((s) => s.spanId === id && s.traceId === link.traceId);
        if (!at) break;
        path.push(at);
        id = at.parentSpanId;
      }
      return path;
    };
    const receipt = await eventually(() => receiptPath().find((s) => /^POST \/webhooks\//.test(s.name)), {
      timeoutMs: 20_000,
      message: () => `the provider's webhook request above the linked span; got ${receiptPath().map((s) => s.name).join(' < ')}`,
    });
    assert.equal(receipt.kind, 2, 'the webhook is a server span');
    assert.notEqual(receipt.traceId, traceId, "the receipt's trace is its own");
    const operation = spans.find((s) => s.name.startsWith('agent ') && s.attributes['switchboard.agent_id'] === 'traced');
    assert.ok(operation, `an agent operation span; got ${names().join(', ')}`);

    if (CLUSTER) {
      // Across NATS: the gateway's request carries the context, and the node holding the agent continues it.
      const request = spans.find((s) => s.name === 'request sb.agent');
      const served = spans.find((s) => s.name === 'process sb.agent');
      assert.ok(request && served, `the bus request and its handling are in the trace; got ${names().join(', ')}`);
      assert.equal(served.parentSpanId, request.spanId, "the node's span is a child of the gateway's request, from the message's headers");
      // The gateway sent it and a runtime node served it (each names its NATS connection after its node id).
      assert.equal(request.attributes['messaging.client.id'], `switchboard-${t.gateway.runtime.nodeId}`);
      const nodes = t.nodes.map((n) => `switchboard-${n.nodeId}`);
      assert.ok(nodes.includes(String(served.attributes['messaging.client.id'])), `served by a runtime node (${nodes.join(', ')}); got ${String(served.attributes['messaging.client.id'])}`);
      // The node's operation, its commits and the provider call are under the node's span.
      const underServed = (span: ExportedSpan) => {
        let at: ExportedSpan | undefined = span;
        while (at && at !== served) at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined;
        return at === served;
      };
      for (const name of [operation.name, 'provider send', 'store commit']) {
        assert.ok(spans.some((s) => s.name === name && underServed(s)), `a ${name} span under the node's span; got ${names().join(', ')}`);
      }
    }
  });

  it("an MCP tool call's _meta.traceparent is the parent of its span, and the send below it is in that trace", async () => {
    const traceId = randomBytes(16).toString('hex');
    const agentSpan = randomBytes(8).toString('hex');
    const mcp = await connectMcp(t.url, 'streamable', agent.securityToken, agent.agentId);
    try {
      const result = (await mcp.client.callTool({ name: 'comms_send_message', arguments: { channel: 'sms', to: CUSTOMER, body: 'traced over MCP' }, _meta: { traceparent: `00-${traceId}-${agentSpan}-01` } })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      assert.equal(result.isError, undefined, result.content[0]?.text);
    } finally {
      await mcp.close();
    }
    const spans = await eventually(
      () => {
        const found = otlp.spans.filter((s) => s.traceId === traceId);
        return found.some((s) => s.name === 'MCP POST /api/v1/send-message') && found.some((s) => s.name === 'provider send') && found;
      },
      { timeoutMs: 20_000, message: () => `the tool call's spans in trace ${traceId}; got ${otlp.spans.filter((s) => s.traceId === traceId).map((s) => s.name).join(', ')}` },
    );
    const tool = spans.find((s) => s.name === 'MCP POST /api/v1/send-message')!;
    assert.equal(tool.parentSpanId, agentSpan);
    assert.equal(tool.attributes['switchboard.via'], 'mcp');
  });

  it("a call placed with the agent's traceparent has its turns as spans in that trace, each call.turn post under its turn", async () => {
    const traceId = randomBytes(16).toString('hex');
    const agentSpan = randomBytes(8).toString('hex');
    const caller = await provisionAgent(t, 'traced-voice', ['voice']);
    const turns: string[] = [];
    const voiceReceiver = await startCallbackReceiver(() => voiceSecret);
    let voiceSecret: string | undefined;
    try {
      const set = await t.call('PUT', '/api/v1/callback-url', { token: caller.securityToken, json: { callbackUrl: voiceReceiver.url } });
      voiceSecret = ((await set.json()) as { signingSecret: string }).signingSecret;
      voiceReceiver.reply = (event) => {
        if (event.type !== 'call.turn') return {};
        turns.push(String(event.data.text));
        return { text: 'Goodbye!', end: true };
      };
      t.sim.phone.onOutbound('+14155550321', { steps: ['Who is this?'], stayOnLine: true });
      const res = await t.call('POST', '/api/v1/make-call', {
        token: caller.securityToken,
        json: { to: '+14155550321', greeting: 'Hi, a traced call.' },
        headers: { traceparent: `00-${traceId}-${agentSpan}-01` },
      });
      assert.equal(res.status, 200, await res.clone().text());
      const { callSid } = (await res.json()) as { callSid: string };
      await t.sim.phone.get(callSid)!.done;
      assert.deepEqual(turns, ['Who is this?']);
      const posted = voiceReceiver.events.find((e) => e.event.type === 'call.turn')!;
      const [, postTrace, postSpan] = posted.headers.traceparent!.split('-');
      assert.equal(postTrace, traceId, 'the call.turn post is in the call trace');
      const spans = await eventually(
        () => {
          const found = otlp.spans.filter((s) => s.traceId === traceId);
          return found.some((s) => s.name === 'call turn') && found.some((s) => s.spanId === postSpan) && found;
        },
        { timeoutMs: 20_000, message: () => `a call turn span in trace ${traceId}; got ${otlp.spans.filter((s) => s.traceId === traceId).map((s) => s.name).join(', ')}` },
      );
      const turn = spans.find((s) => s.name === 'call turn')!;
      assert.equal(turn.parentSpanId, agentSpan, "the turn is under the agent's span of the call");
      assert.equal(turn.attributes['switchboard.agent_id'], 'traced-voice');
      assert.equal(spans.find((s) => s.spanId === postSpan)!.parentSpanId, turn.spanId, 'the call.turn post is under its turn');
      assert.ok(spans.some((s) => s.name === 'POST /api/v1/make-call' && s.parentSpanId === agentSpan));
    } finally {
      await voiceReceiver.close();
    }
  });

  it('a request without a traceparent starts a trace of its own', async () => {
    const res = await t.call('GET', '/api/v1/inbox?after=0&limit=1', { token: agent.securityToken });
    assert.equal(res.status, 200);
    const span = await eventually(() => otlp.spans.find((s) => s.name === 'GET /api/v1/inbox' && s.parentSpanId === undefined || (s.name === 'GET /api/v1/inbox' && s.parentSpanId === '')), {
      timeoutMs: 20_000,
      message: () => `a root span for GET /api/v1/inbox; got ${otlp.spans.map((s) => s.name).join(', ')}`,
    });
    assert.match(span.traceId, /^[0-9a-f]{32}$/);
  });
});

// The process entry itself (once: it does not depend on the cluster pass): `switchboard start` reads the
// variables from its environment, and a stop flushes what is still batched.
if (!CLUSTER) {
  describe('OpenTelemetry traces in a `switchboard start` process', () => {
    it('are exported by the process, and the batch still waiting is flushed when it stops on SIGTERM', async () => {
      const otlp = await startOtlpReceiver();
      const dir = mkdtempSync(join(tmpdir(), 'sb-tracing-'));
      try {
        // A batch delay of ten minutes: spans reach the receiver only through the flush at stop.
        const server = await startServerProcess(['--data-dir', dir], { DEMO_MODE: 'true', SIMULATOR_PORT: '0', ...OTEL_ENV(otlp.url), OTEL_BSP_SCHEDULE_DELAY: '600000' });
        const traceId = randomBytes(16).toString('hex');
        const agentSpan = randomBytes(8).toString('hex');
        let code: number | null;
        try {
          const res = await fetch(`${server.url}/health`, { headers: { traceparent: `00-${traceId}-${agentSpan}-01` } });
          assert.equal(res.status, 200);
          assert.equal(otlp.posts(), 0, 'nothing exported before the batch is due');
        } finally {
          code = await server.stop('SIGTERM');
        }
        assert.equal(code, 0, server.output());
        const span = otlp.spans.find((s) => s.traceId === traceId);
        assert.ok(span, `the request's span was flushed at stop; got ${otlp.spans.map((s) => s.name).join(', ')}`);
        assert.equal(span.name, 'GET /health');
        assert.equal(span.parentSpanId, agentSpan);
        assert.equal(span.resource['service.name'], 'switchboard-under-test');
      } finally {
        await otlp.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
