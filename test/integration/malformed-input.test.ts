import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import twilio from 'twilio';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * A bounded fuzz of the whole HTTP surface: every operation in the OpenAPI document gets the same
 * battery of malformed requests (deep nesting, wrong types, huge strings, bad JSON, wrong content
 * types, arrays for objects, prototype keys, invalid UTF-8, odd queries and path parameters), and
 * webhooks get them signed too, so they reach the parsers behind the signature check. Not one answer
 * may be a 5xx, every error must carry the contract's body, and the server must stay healthy.
 */

interface Operation {
  readonly method: string;
  readonly template: string;
  readonly operationId: string;
  /** The fields of its JSON body and its query parameters, as documented; absent where it documents none. */
  readonly bodyFields?: readonly string[];
  readonly queryFields?: readonly string[];
}

interface Probe {
  readonly kind: string;
  readonly template: string;
  /** Sent with a valid provider signature to the real agent's webhook. */
  readonly signed: boolean;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
  /** A field or query parameter the route does not document: the probe must not succeed. */
  readonly unknownField?: string;
}

const AGENT = 'fuzz';
const DEPTH = 5000;

/** A body every JSON route accepts, so the mutations below are one defect away from valid. */
const VALID: Record<string, Record<string, unknown>> = {
  provision: { agentId: 'fz-new', displayName: 'Fuzz', channels: ['line'] },
  deprovision: { agentId: 'fz-victim' },
  sendMessage: { agentId: AGENT, channel: 'sms', to: '+14155550123', body: 'hello' },
  makeCall: { agentId: AGENT, to: '+14155550123' },
  callOnBehalf: { agentId: AGENT, target: '+14155550123', requesterPhone: '+14155550124' },
  sendVoiceMessage: { agentId: AGENT, to: '+14155550123', text: 'hello' },
  transferCall: { agentId: AGENT, callSid: 'CA00000000000000000000000000000000', to: '+14155550123' },
  setCallbackUrl: { agentId: AGENT, callbackUrl: null },
  adminSetBlockedChannels: { blockedChannels: [] },
  adminAddPoolEntries: { addresses: ['+14155550999'] },
  adminSetLimits: { limits: { actionsPerDay: null } },
  adminSetMarkup: { markupPercent: 10 },
  mcpSseMessage: { jsonrpc: '2.0', id: 1, method: 'ping' },
};

const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const withField = (valid: Record<string, unknown>, name: string, rawValue: string) => {
  const text = JSON.stringify(valid);
  return text === '{}' ? `{"${name}":${rawValue}}` : `${text.slice(0, -1)},"${name}":${rawValue}}`;
};

/** Malformed JSON bodies for a route, each named for the report. */
function jsonBodies(valid: Record<string, unknown>): [string, string | Buffer][] {
  const fields = Object.keys(valid);
  const bodies: [string, string | Buffer][] = [
    ['deep unknown object', withField(valid, 'extra', deepObject(DEPTH))],
    ['deep unknown array', withField(valid, 'extra', deepArray(DEPTH))],
    ['unknown at depth 40', withField(valid, 'extra', deepObject(40))],
    ['deep whole body', deepObject(DEPTH)],
    ['deep array body', deepArray(DEPTH)],
    ['deep after string with brackets', withField({ ...valid, note: '{{{[[[\\"' }, 'extra', deepObject(DEPTH))],
    ['truncated', JSON.stringify(valid).slice(0, -3)],
    ['trailing garbage', `${JSON.stringify(valid)}garbage`],
    ['trailing comma', `${JSON.stringify(valid).slice(0, -1)},}`],
    ['single quotes', "{'a':1}"],
    ['NaN', '{"a":NaN}'],
    ['empty', ''],
    ['whitespace', '   \n '],
    ['null', 'null'],
    ['number', '12345'],
    ['string', '"text"'],
    ['true', 'true'],
    ['empty array', '[]'],
    ['array of valid', `[${JSON.stringify(valid)}]`],
    ['empty object', '{}'],
    ['proto keys', withField(valid, '__proto__', '{"polluted":true,"isAdmin":true},"constructor":{"prototype":{"polluted":true}}')],
    ['proto only', '{"__proto__":{"agentId":"other"},"constructor":{"prototype":{"x":1}},"prototype":1}'],
    ['huge unknown string', withField(valid, 'extra', JSON.stringify('x'.repeat(300_000)))],
    ['many keys', `{${Array.from({ length: 5000 }, (_, i) => `"k${i}":${i}`).join(',')}}`],
    ['duplicate keys', `${JSON.stringify(valid).slice(0, -1)},"agentId":{"a":[1,2]}}`],
    ['invalid utf-8', Buffer.concat([Buffer.from('{"displayName":"'), Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80]), Buffer.from('","body":"x"}')])],
    ['lone surrogates', withField(valid, 'body', '"\\ud800\\udfff\\ud800"')],
    ['nul bytes', withField(valid, 'extra', '"a\\u0000b"')],
    ['huge number', withField(valid, 'markupPercent', '1e999')],
    ['negative zero and bigints', withField(valid, 'limit', '-0,"n":123456789012345678901234567890')],
  ];
  for (const field of fields) {
    for (const [name, raw] of [
      ['number', '123'],
      ['boolean', 'true'],
      ['null', 'null'],
      ['object', '{"a":{"b":[1]}}'],
      ['array', '[1,"two",{"three":3}]'],
      ['deep', deepObject(DEPTH)],
      ['long string', JSON.stringify('y'.repeat(120_000))],
    ] as const) {
      const text = JSON.stringify({ ...valid, [field]: '__HOLE__' }).replace('"__HOLE__"', raw);
      bodies.push([`${field} as ${name}`, text]);
    }
  }
  return bodies;
}

/** Content types other than JSON, sent with a JSON body. */
const WRONG_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonx',
  'application/json-patch+json',
  'application/xml',
  '',
  ';;;',
  'application/json; charset=utf-7',
];

const QUERIES = [
  'agentId[]=x&agentId[]=y',
  'agentId=%ZZ',
  'limit=-1',
  'limit=1e999',
  'limit=abc',
  'limit=0x10',
  'channel=fax',
  'period=yesterday',
  '__proto__[polluted]=1&constructor[prototype][x]=1',
  `agentId=${'a'.repeat(6000)}`,
  'agentId=%00%01',
  'sessionId=&token=&agentId=',
  '&&&==&=',
  'agentId=%C0%AF',
];

const FORM_BODIES = [
  'From=%2B14155550123&To=%2B14155550100&Body=hi&MessageSid=SM1',
  'a[b][c][d][e]=1&__proto__[x]=1&constructor[prototype][y]=2',
  '%ZZ=%ZZ&&&=',
  `Body=${'z'.repeat(200_000)}`,
  Array.from({ length: 3000 }, (_, i) => `p${i}=${i}`).join('&'),
  'CallSid=&CallStatus=completed&CallDuration=-5&Price=abc',
  'CallSid=CA1&CallStatus=%00&CallDuration=1e999',
  'MessageSid=SM2&MessageStatus=delivered&ErrorCode=xyz',
  '{"not":"form"}',
];

interface Documented {
  operationId: string;
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
  parameters?: { name: string; in: string }[];
}

/** The first key of a JSON object body that `fields` does not list. */
function unknownKeyOf(body: string | Buffer, fields: readonly string[] | undefined): string | undefined {
  if (!fields) return undefined;
  try {
    const value = JSON.parse(body.toString()) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    return Object.keys(value).find((key) => !fields.includes(key));
  } catch {
    return undefined;
  }
}

describe('malformed requests across every route: no 5xx, always the contract error body', () => {
  let t: TestGateway;
  let clientToken: string;
  let operations: Operation[];

  before(async () => {
    t = await startTestGateway({ AUTH_LOCKOUT_ATTEMPTS: 1000, LIMIT_ACTIONS_PER_MINUTE: 0 });
    await provisionAgent(t, AGENT);
    // The client token is another agent's: a fuzzed deprovision with it must not remove the agent the webhooks use.
    clientToken = (await provisionAgent(t, 'fz-client', ['line'])).securityToken;
    await provisionAgent(t, 'fz-victim', ['line']);
    const doc = (await (await t.call('GET', '/api/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, Documented>>;
    };
    // The MCP transports read their own requests; every other documented body and query is checked by the pipeline.
    const checked = (template: string) => !['/sse', '/messages', '/mcp'].includes(template);
    operations = Object.entries(doc.paths).flatMap(([template, ops]) =>
      Object.entries(ops).map(([method, op]) => {
        const body = op.requestBody?.content['application/json']?.schema.properties;
        const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        return {
          method: method.toUpperCase(),
          template,
          operationId: op.operationId,
          ...(body && checked(template) ? { bodyFields: Object.keys(body) } : {}),
          ...(query.length > 0 && checked(template) ? { queryFields: query } : {}),
        };
      }),
    );
  });
  after(() => t.close());

  /** Signed webhooks: the provider headers that make a fuzzed body pass the signature check. */
  function signed(path: string, query: string, contentType: string, body: Buffer): Record<string, string> {
    const creds = (t.sim as unknown as { credentials: { twilio: { authToken: string }; line: { channelSecret: string }; resend: { webhookSecret: string } } })
      .credentials;
    const url = `${t.gateway.publicBaseUrl}${path}${query ? `?${query}` : ''}`;
    if (path.endsWith('/line')) return { 'x-line-signature': createHmac('sha256', creds.line.channelSecret).update(body).digest('base64') };
    if (path.endsWith('/email')) {
      const id = `msg_${Math.random().toString(36).slice(2)}`;
      const now = new Date();
      return {
        'svix-id': id,
        'svix-timestamp': String(Math.floor(now.getTime() / 1000)),
        'svix-signature': new Webhook(creds.resend.webhookSecret).sign(id, now, body.toString('utf8')),
      };
    }
    const params = contentType.startsWith('application/x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(body.toString('utf8'))) : {};
    return { 'x-twilio-signature': twilio.getExpectedTwilioSignature(creds.twilio.authToken, url, params) };
  }

  function probes(op: Operation): Probe[] {
    const out: Probe[] = [];
    const paths = [
      op.template.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'pool' ? 'phone' : name === 'name' ? 'vm_0000.wav' : AGENT)),
      op.template.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'pool' ? '__proto__' : name === 'name' ? '..%2F..%2Fetc%2Fpasswd' : '%E0%A4%A')),
      op.template.replace(/\{(\w+)\}/g, () => 'x'.repeat(400)),
    ];
    const webhook = op.template.startsWith('/webhooks/');
    const auth = (i: number): Record<string, string> =>
      [
        { authorization: `Bearer ${t.orchestratorToken}` },
        { authorization: `Bearer ${clientToken}` },
        { authorization: `Bearer ${'\u00ff'.repeat(2)}x` },
        { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
        { authorization: `Bearer ${'t'.repeat(8000)}` },
      ][i % 5]!;
    const add = (kind: string, path: string, headers: Record<string, string>, body?: string | Buffer, unknownField?: string) =>
      out.push({
        ...(unknownField === undefined ? {} : { unknownField }),
        kind,
        template: op.template,
        signed: path === paths[0] && Object.keys(headers).some((h) => h.endsWith('-signature')),
        method: op.method,
        path,
        headers,
        ...(body === undefined ? {} : { body: Buffer.isBuffer(body) ? body : Buffer.from(body) }),
      });

    const bodies = jsonBodies(VALID[op.operationId] ?? {});
    bodies.forEach(([kind, body], i) => {
      const path = paths[i % 7 === 6 ? 1 : 0]!;
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(webhook ? {} : auth(i % 11 === 10 ? 1 : 0)) };
      if (webhook) Object.assign(headers, signed(path, '', 'application/json', Buffer.isBuffer(body) ? body : Buffer.from(body)));
      add(`json: ${kind}`, path, headers, body, unknownKeyOf(body, op.bodyFields));
    });
    WRONG_TYPES.forEach((type, i) => add(`type: ${type || '(none)'}`, paths[0]!, { ...auth(i % 2), ...(type ? { 'content-type': type } : {}) }, JSON.stringify(VALID[op.operationId] ?? { a: 1 })));
    QUERIES.forEach((query, i) => {
      const unknown = op.queryFields && [...new URLSearchParams(query).keys()].find((name) => !op.queryFields!.includes(name));
      add(`query: ${query.slice(0, 40)}`, `${paths[i % 3 === 2 ? 1 : 0]}?${query}`, auth(i % 3 === 1 ? 1 : 0), undefined, unknown);
    });
    FORM_BODIES.forEach((form, i) => {
      const path = paths[i === 4 ? 1 : 0]!;
      const type = 'application/x-www-form-urlencoded';
      const headers = { 'content-type': type, ...(webhook ? signed(path, '', type, Buffer.from(form)) : auth(0)) };
      add(`form: ${form.slice(0, 30)}`, path, headers, form);
    });
    for (let i = 0; i < 5; i++) add(`auth #${i}`, paths[2]!, { ...auth(i), 'idempotency-key': i === 0 ? 'k'.repeat(10_000) : `\u00e9${i}` });
    if (!webhook) add('over the body limit', paths[0]!, { ...auth(0), 'content-type': 'application/json' }, `{"a":"${'b'.repeat(1_100_000)}"}`);
    return out;
  }

  it('sends at least 2,000 malformed requests over every documented route without a 5xx', async () => {
    const all = operations.flatMap(probes);
    assert.ok(new Set(operations.map((o) => `${o.method} ${o.template}`)).size >= 30, 'the OpenAPI document lists the routes');
    assert.ok(all.length >= 2000, `only ${all.length} probes`);
    const failures: string[] = [];
    const statuses = new Map<string, Set<number>>();
    let unknownProbes = 0;
    let next = 0;
    const worker = async () => {
      while (next < all.length) {
        const probe = all[next++]!;
        const label = `${probe.method} ${probe.path.slice(0, 80)} [${probe.kind}]`;
        try {
          const controller = new AbortController();
          const timer = setTimeout(() => controller.abort(), 10_000);
          const res = await fetch(`${t.url}${probe.path}`, {
            method: probe.method,
            headers: probe.headers,
            signal: controller.signal,
            ...(probe.body !== undefined && probe.method !== 'GET' && probe.method !== 'DELETE' ? { body: probe.body } : {}),
          });
          const streaming = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
          const text = streaming ? '' : await res.text();
          clearTimeout(timer);
          if (streaming) controller.abort();
          if (probe.signed) statuses.set(probe.template, (statuses.get(probe.template) ?? new Set<number>()).add(res.status));
          if (probe.unknownField !== undefined) unknownProbes++;
          if (res.status >= 500) failures.push(`${label} → ${res.status} ${text.slice(0, 200)}`);
          else if (res.status < 300 && probe.unknownField !== undefined) failures.push(`${label} → ${res.status}, although ${probe.unknownField} is not a documented field`);
          else if (res.status >= 400) {
            let body: { error?: unknown; code?: unknown } = {};
            try {
              body = JSON.parse(text) as typeof body;
            } catch {
              /* reported below */
            }
            if (typeof body.error !== 'string' || typeof body.code !== 'string') failures.push(`${label} → ${res.status} without the error body: ${text.slice(0, 200)}`);
            else if (/\.\.\)|\.\.$/.test(body.error)) failures.push(`${label} → doubled punctuation: ${body.error.slice(-120)}`);
          }
        } catch (err) {
          failures.push(`${label} → ${(err as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    assert.deepEqual(failures.slice(0, 25), [], `${failures.length} of ${all.length} probes failed`);
    assert.ok(unknownProbes >= 200, `only ${unknownProbes} probes carry an undocumented field`);
    const health = await t.call('GET', '/health');
    assert.equal(health.status, 200);
    // A signed probe answered with anything but 403 got past the signature check to the parser or the handler.
    const accepted = [...statuses].filter(([, seen]) => [...seen].some((s) => s !== 403)).map(([template]) => template);
    for (const channel of ['sms', 'whatsapp', 'email', 'line', 'voice', 'outbound-voice', 'call-status']) {
      assert.ok(accepted.includes(`/webhooks/{agentId}/${channel}`), `signed fuzz reached past the ${channel} webhook's signature check`);
    }
    const provisioned = await t.call('POST', '/api/v1/provision', { token: t.orchestratorToken, json: { agentId: 'fz-after', displayName: 'after', channels: ['sms'] } });
    assert.equal(provisioned.status, 201, 'the server still does real work afterwards');
  });
});
