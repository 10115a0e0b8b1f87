import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** One date-time input of one operation, as the OpenAPI document lists it. */
interface DateTimeInput {
  readonly operation: string;
  readonly field: string;
}

interface Parameter {
  name: string;
  in: string;
  schema?: { format?: string };
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, { format?: string }> } }> };
}

/** Every query parameter and top-level body field the document says is a date-time. */
function dateTimeInputs(doc: { paths: Record<string, Record<string, Operation>> }): DateTimeInput[] {
  const found: DateTimeInput[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const name = `${method.toUpperCase()} ${path}`;
      for (const p of operation.parameters ?? []) if (p.schema?.format === 'date-time') found.push({ operation: name, field: p.name });
      const body = operation.requestBody?.content['application/json']?.schema.properties ?? {};
      for (const [field, schema] of Object.entries(body)) if (schema.format === 'date-time') found.push({ operation: name, field });
    }
  }
  return found.sort((a, b) => `${a.operation} ${a.field}`.localeCompare(`${b.operation} ${b.field}`));
}

/** The parts of a date-time string, some of them out of range on purpose. */
interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  fraction: string;
  separator: string;
  offset: { kind: 'Z'; text: string } | { kind: 'numeric'; sign: 1 | -1; hours: number; minutes: number; colon: boolean } | { kind: 'hours'; sign: 1 | -1; hours: number };
}

const two = (n: number) => String(n).padStart(2, '0');

function spell(p: Parts): string {
  const o = p.offset;
  const offset =
    o.kind === 'Z' ? o.text : o.kind === 'hours' ? `${o.sign < 0 ? '-' : '+'}${two(o.hours)}` : `${o.sign < 0 ? '-' : '+'}${two(o.hours)}${o.colon ? ':' : ''}${two(o.minutes)}`;
  return `${String(p.year).padStart(4, '0')}-${two(p.month)}-${two(p.day)}${p.separator}${two(p.hour)}:${two(p.minute)}:${two(p.second)}${p.fraction}${offset}`;
}

const leap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days from 0001-01-01 to the first of `year`-`month`, by counting: no Date involved. */
function daysBefore(year: number, month: number): number {
  const y = year - 1;
  let days = y * 365 + Math.floor(y / 4) - Math.floor(y / 100) + Math.floor(y / 400);
  for (let m = 1; m < month; m++) days += m === 2 && leap(year) ? 29 : MONTH_DAYS[m - 1]!;
  return days;
}

/**
 * Whether the parts name a real instant the API takes, worked out by arithmetic: RFC 3339 with a T,
 * a day its month has, a second of 0–59, Z or an offset ±hh:mm within a day, and a UTC time in the
 * years 0001–9999.
 */
function isRealInstant(p: Parts): boolean {
  return utcMinutesOf(p) !== undefined;
}

/** The instant's minutes since 0001-01-01T00:00Z when the parts name a real one (see {@link isRealInstant}). */
function utcMinutesOf(p: Parts): number | undefined {
  if (p.separator.toUpperCase() !== 'T' || p.month < 1 || p.month > 12 || p.day < 1) return undefined;
  if (p.day > (p.month === 2 && leap(p.year) ? 29 : MONTH_DAYS[p.month - 1]!)) return undefined;
  if (p.hour > 23 || p.minute > 59 || p.second > 59) return undefined;
  const o = p.offset;
  if (o.kind === 'hours' || (o.kind === 'numeric' && (!o.colon || o.hours > 23 || o.minutes > 59))) return undefined;
  const offsetMinutes = o.kind === 'Z' ? 0 : o.sign * (o.hours * 60 + o.minutes);
  const utcMinutes = (daysBefore(p.year, p.month) + p.day - 1) * 1440 + p.hour * 60 + p.minute - offsetMinutes;
  return utcMinutes >= 0 && utcMinutes < daysBefore(10_000, 1) * 1440 ? utcMinutes : undefined;
}

/** A consent's givenAt may not be in the future (the server allows 5 minutes of clock skew). */
const GIVEN_AT_SKEW_MINUTES = 5;
/** Whether the parts name an instant more than the skew after now. */
function isFuture(p: Parts): boolean {
  const minutes = utcMinutesOf(p);
  const nowMinutes = daysBefore(1970, 1) * 1440 + Date.now() / 60_000;
  return minutes !== undefined && minutes + p.second / 60 > nowMinutes + GIVEN_AT_SKEW_MINUTES;
}

const sign = fc.constantFrom<1 | -1>(1, -1);
const parts: fc.Arbitrary<Parts> = fc.record({
  year: fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 1, 1900, 2000, 2024, 2026, 9999)),
  month: fc.integer({ min: 0, max: 13 }),
  day: fc.oneof(fc.integer({ min: 0, max: 32 }), fc.constantFrom(28, 29, 30, 31)),
  hour: fc.integer({ min: 0, max: 24 }),
  minute: fc.integer({ min: 0, max: 60 }),
  second: fc.oneof(fc.integer({ min: 0, max: 61 }), fc.constant(60)),
  fraction: fc.oneof(fc.constant(''), fc.stringMatching(/^\.\d{1,9}$/)),
  separator: fc.constantFrom('T', 'T', 't', ' '),
  offset: fc.oneof(
    fc.record({ kind: fc.constant('Z' as const), text: fc.constantFrom('Z', 'z') }),
    fc.record({ kind: fc.constant('numeric' as const), sign, hours: fc.integer({ min: 0, max: 25 }), minutes: fc.integer({ min: 0, max: 61 }), colon: fc.boolean() }),
    fc.record({ kind: fc.constant('hours' as const), sign, hours: fc.integer({ min: 0, max: 25 }) }),
  ),
});

describe('date-time inputs: a string that is no real instant is 400, never a 500', () => {
  let t: TestGateway;
  let inputs: DateTimeInput[];
  before(async () => {
    t = await startTestGateway();
    await provisionAgent(t, 'dt-agent', ['sms']);
    const doc = (await (await t.call('GET', '/api/v1/openapi.json')).json()) as Parameters<typeof dateTimeInputs>[0];
    inputs = dateTimeInputs(doc);
  });
  after(() => t.close());

  /** The far ends a field's partner takes, so that since < until whenever the value is real. */
  const partner = (field: string) => (field === 'since' ? { until: '9999-12-31T23:59:59Z' } : { since: '0001-01-01T00:00:00Z' });

  /** Sends `value` as the date-time input, the rest of the request valid. */
  function send(input: DateTimeInput, value: string): Promise<Response> {
    const [method, template] = input.operation.split(' ') as [string, string];
    const path = template.replace('{agentId}', 'dt-agent');
    // A consent's time: the rest of the consent as an operator records it for the agent.
    if (input.operation === 'POST /api/v1/consents') {
      return t.call(method, path, { token: t.orchestratorToken, json: { agentId: 'dt-agent', contact: '+14155550100', channel: 'sms', kind: 'transactional', source: 'date-time test', [input.field]: value } });
    }
    if (method === 'GET') {
      const query = new URLSearchParams({ [input.field]: value });
      return t.call('GET', `${path}?${query}`, { token: t.orchestratorToken });
    }
    return t.call(method, path, { token: t.orchestratorToken, json: { ...partner(input.field), [input.field]: value } });
  }

  it('the document lists the date-time inputs this test drives', () => {
    // A new date-time input joins this list, and so the properties below.
    assert.deepEqual(
      inputs.map((i) => `${i.operation} ${i.field}`),
      [
        'GET /admin/api/calls since',
        'GET /admin/api/calls until',
        'GET /admin/api/dead-letters since',
        'GET /admin/api/messages since',
        'POST /admin/api/agents/{agentId}/callback-replay since',
        'POST /admin/api/agents/{agentId}/callback-replay until',
        'GET /api/v1/calls since',
        'GET /api/v1/calls until',
        'POST /api/v1/consents givenAt',
      ].sort((a, b) => a.localeCompare(b)),
    );
  });

  it('the examples of issue 32 are 400 VALIDATION_FAILED naming the field, with the contract error body', async () => {
    for (const value of ['2026-12-31T23:59:60Z', '2026-12-31T23:59:59+23', '2026-02-30T00:00:00Z', '2026-01-01T00:00:00+24:00', '2026-01-01T00:00:00+05:60']) {
      for (const input of inputs) {
        const res = await send(input, value);
        const body = (await res.json()) as { code: string; error: string };
        assert.equal(res.status, 400, `${input.operation} ${input.field}=${value}: ${JSON.stringify(body)}`);
        assert.equal(body.code, 'VALIDATION_FAILED');
        assert.match(body.error, new RegExp(`\\b${input.field}\\b`));
      }
    }
  });

  it('generated date-times: 200 when they name a real instant, else 400 VALIDATION_FAILED', async () => {
    for (const input of inputs) {
      await fc.assert(
        fc.asyncProperty(parts, async (p) => {
          const value = spell(p);
          const res = await send(input, value);
          const body = (await res.json()) as { code?: string };
          // givenAt: a real instant, and not in the future.
          const expected = isRealInstant(p) && !(input.field === 'givenAt' && isFuture(p)) ? 200 : 400;
          assert.equal(res.status, expected, `${input.operation} ${input.field}=${value}: ${JSON.stringify(body)}`);
          if (expected === 400) assert.equal(body.code, 'VALIDATION_FAILED');
        }),
        { numRuns: 60 },
      );
    }
  });

  it('any string at all is 200 or 400, never a 500', async () => {
    const anything = fc.oneof(fc.string({ maxLength: 40 }), fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), parts.map(spell));
    for (const input of inputs) {
      await fc.assert(
        fc.asyncProperty(anything, async (value) => {
          const res = await send(input, value);
          const body = (await res.json()) as { code?: string };
          assert.ok(res.status === 200 || (res.status === 400 && body.code === 'VALIDATION_FAILED'), `${input.operation} ${input.field}=${JSON.stringify(value)}: ${res.status} ${JSON.stringify(body)}`);
        }),
        { numRuns: 40 },
      );
    }
  });
});
