import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type, type TSchema } from '@sinclair/typebox';
import { compileBody, compileQuery } from '../../src/http/validation.js';
import { ApiKeyTestBody, BlockedChannelsBody, ListFilter, PoolAddBody, SaveBody, SignInBody, TwilioTestBody } from '../../src/schemas/admin.js';
import { LimitsBody, MarkupBody, ReportQuery } from '../../src/schemas/billing.js';
import { AgentQuery, CallbackUrlBody, SendMessageBody, WaitingMessagesQuery } from '../../src/schemas/messaging.js';
import { DeprovisionBody, ProvisionBody } from '../../src/schemas/provisioning.js';
import { CallOnBehalfBody, MakeCallBody, SendVoiceMessageBody, TransferCallBody } from '../../src/schemas/voice.js';

interface Refusal {
  code: string;
  message: string;
  details: { field: string; message: string; allowed?: string[] }[];
}

/** The error a check throws for `value`; fails the test when it accepts it. */
function refusal(check: (value: unknown) => void, value: unknown): Refusal {
  try {
    check(value);
  } catch (err) {
    return err as Refusal;
  }
  assert.fail(`accepted ${JSON.stringify(value)}`);
}

const BODIES: Record<string, TSchema> = {
  SendMessageBody,
  CallbackUrlBody,
  ProvisionBody,
  DeprovisionBody,
  MakeCallBody,
  CallOnBehalfBody,
  SendVoiceMessageBody,
  TransferCallBody,
  LimitsBody,
  MarkupBody,
  BlockedChannelsBody,
  PoolAddBody,
  TwilioTestBody,
  ApiKeyTestBody,
  SaveBody,
  SignInBody,
};
const QUERIES: Record<string, TSchema> = { WaitingMessagesQuery, AgentQuery, ReportQuery, ListFilter };

describe('request validation refuses unknown fields', () => {
  it('every request body and query schema refuses a field it does not declare, naming it and the allowed ones', () => {
    for (const [name, schema] of [...Object.entries(BODIES), ...Object.entries(QUERIES)]) {
      const check = name in BODIES ? compileBody(schema) : compileQuery(schema);
      const where = name in BODIES ? 'body' : 'query';
      const allowed = Object.keys((schema as unknown as { properties: object }).properties);
      const error = refusal(check, { zzUnknown: 1 });
      assert.equal(error.code, 'BAD_REQUEST', name);
      assert.equal(error.message, `Unknown field zzUnknown in ${where}; allowed: ${allowed.join(', ')}.`, name);
      assert.deepEqual(error.details[0], { field: 'zzUnknown', message: `zzUnknown is not a field here; allowed: ${allowed.join(', ')}`, allowed }, name);
      assert.equal((schema as { additionalProperties?: unknown }).additionalProperties, false, `${name} says so itself, for OpenAPI and MCP`);
    }
  });

  it('a misspelt field on send-message names it and every allowed field', () => {
    // `body` or a WhatsApp `template`: neither is required by the schema, the route asks for one of them.
    const error = refusal(compileBody(SendMessageBody), { channel: 'sms', to: '+14155550123', bodyy: 'hi' });
    const allowed = ['agentId', 'channel', 'to', 'conversationId', 'body', 'template', 'subject', 'html', 'mediaUrls', 'marketing'];
    assert.equal(error.code, 'BAD_REQUEST');
    assert.equal(error.message, 'Unknown field bodyy in body; allowed: agentId, channel, to, conversationId, body, template, subject, html, mediaUrls, marketing.');
    assert.deepEqual(error.details, [{ field: 'bodyy', message: `bodyy is not a field here; allowed: ${allowed.join(', ')}`, allowed }]);
  });

  it('several unknown fields are each named; nested ones name their own object', () => {
    const several = refusal(compileBody(SendMessageBody), { channnel: 'sms', to: '+14155550123', body: 'hi', colour: 'teal' });
    assert.match(several.message, /^Unknown fields channnel, colour in body; allowed: /);
    assert.deepEqual(several.details.filter((d) => d.allowed).map((d) => d.field), ['channnel', 'colour']);
    const nested = refusal(compileBody(LimitsBody), { limits: { actionsPerDay: 5, actionsPerDya: 1 } });
    assert.equal(nested.code, 'BAD_REQUEST');
    assert.equal(
      nested.message,
      'Unknown field actionsPerDya in limits; allowed: actionsPerMinute, actionsPerHour, actionsPerDay, spendPerDay, spendPerMonth, callsPerDayToSameNumber.',
    );
    assert.equal(nested.details[0]!.field, 'limits/actionsPerDya');
    const both = refusal(compileBody(LimitsBody), { limits: { colour: 1 }, extra: true });
    assert.match(both.message, /^Unknown field extra in body; allowed: limits, markupPercent \(and 1 more\)\.$/);
    assert.deepEqual(both.details.map((d) => d.field), ['extra', 'limits/colour']);
  });

  it('thousands of made-up keys, or one very long one, get an answer of a few lines', () => {
    const many = refusal(compileBody(SendMessageBody), Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])));
    assert.equal(many.code, 'BAD_REQUEST');
    assert.match(many.message, /^Unknown fields k0, k1, .*, k19 in body; allowed: .* \(and 4980 more\)\.$/);
    assert.ok(many.details.length <= 40, `${many.details.length} details`);
    const long = refusal(compileBody(SendMessageBody), { channel: 'sms', to: '+14155550123', body: 'hi', ['x'.repeat(100_000)]: 1 });
    assert.ok(long.message.length < 300, long.message);
    assert.equal(long.details[0]!.field, `${'x'.repeat(64)}…`);
  });

  it('a query keeps its coercion and defaults, and refuses an unknown parameter', () => {
    const check = compileQuery(WaitingMessagesQuery);
    const query: Record<string, unknown> = { channel: 'sms', limit: '7' };
    check(query);
    assert.deepEqual(query, { channel: 'sms', limit: 7 });
    const defaulted: Record<string, unknown> = {};
    check(defaulted);
    assert.deepEqual(defaulted, { limit: 50 });
    const error = refusal(check, { chanel: 'sms' });
    assert.equal(error.message, 'Unknown field chanel in query; allowed: agentId, channel, limit.');
  });

  it('MCP tool arguments are named as such', () => {
    const error = refusal((value) => compileBody(SendMessageBody)(value, 'arguments'), { channnel: 'sms', to: '+14155550123', body: 'hi' });
    assert.match(error.message, /^Unknown field channnel in arguments; allowed: agentId, channel, /);
  });

  it('other errors keep VALIDATION_FAILED and read as one sentence, never with doubled punctuation', () => {
    const literal = refusal(compileBody(SendMessageBody), { channel: 'fax', to: '+14155550123', body: 'hi' });
    assert.equal(literal.code, 'VALIDATION_FAILED');
    assert.equal(literal.message, 'Invalid body: channel must be one of sms, email, whatsapp, line.');
    const dotted = Type.Object({ v: Type.Union([Type.Literal('a.'), Type.Literal('b.')]) }, { additionalProperties: false });
    assert.equal(refusal(compileBody(dotted), { v: 'c' }).message, 'Invalid body: v must be one of a., b.');
    const empty = Type.Object({}, { additionalProperties: false });
    assert.equal(refusal(compileBody(empty), { x: 1 }).message, 'Unknown field x in body; it takes no fields.');
  });

  it('a union of object schemas names a field no branch takes, or the errors of the branch that takes them all', () => {
    const union = Type.Object(
      {
        target: Type.Union([
          Type.Object({ phone: Type.String() }, { additionalProperties: false }),
          Type.Object({ email: Type.String(), name: Type.Optional(Type.String()) }, { additionalProperties: false }),
        ]),
      },
      { additionalProperties: false },
    );
    const check = compileBody(union);
    check({ target: { phone: '+14155550123' } });
    check({ target: { email: 'a@example.com', name: 'Ada' } });
    const stranger = refusal(check, { target: { emial: 'a@example.com' } });
    assert.equal(stranger.code, 'BAD_REQUEST');
    assert.equal(stranger.message, 'Unknown field emial in target; allowed: phone, email, name.');
    const fitting = refusal(check, { target: { email: 5, name: 'Ada' } });
    assert.equal(fitting.code, 'VALIDATION_FAILED');
    assert.equal(fitting.message, 'Invalid body: target/email must be string.');
  });

  it('a route cannot register a request schema that leaves unknown fields open, or intersects objects', () => {
    assert.throws(() => compileBody(Type.Object({ a: Type.String() })), /must set additionalProperties/);
    assert.throws(() => compileQuery(Type.Object({ nested: Type.Object({ a: Type.String() }) }, { additionalProperties: false })), /#\/properties\/nested/);
    const intersect = Type.Intersect([Type.Object({ a: Type.String() }, { additionalProperties: false }), Type.Object({ b: Type.String() }, { additionalProperties: false })]);
    assert.throws(() => compileBody(intersect), /use Type.Composite/);
    compileBody(Type.Object({ jsonrpc: Type.Literal('2.0') }, { additionalProperties: true }));
  });
});
