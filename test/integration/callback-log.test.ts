import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually, eventuallyPasses } from '@switchboard/runtime/testing';

const CUSTOMER = '+14155550142';
/** Three attempts: at once, then 100 ms apart. */
const SCHEDULE = '0,100,100';
/** "Five days" of failures, shortened. */
const DISABLE_AFTER_MS = 1500;

interface Attempt {
  id: string;
  eventId: string;
  agentId: string;
  url: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  responseExcerpt: string | null;
  outcome: string;
  createdAt: string;
}
interface Log {
  agentId: string;
  attempts: Attempt[];
  nextCursor: string | null;
  endpoint: { url: string; failingSince: string | null; disabledAt: string | null } | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Callbacks at the grade of the best webhook senders, end to end: schedule, refusals, the delivery log, replay, disable. */
describe('callback retries, delivery log and replay', () => {
  let t: TestGateway;
  const receivers: CallbackReceiver[] = [];

  before(async () => {
    t = await startTestGateway({ CALLBACK_RETRY_SCHEDULE: SCHEDULE, CALLBACK_DISABLE_AFTER_MS: DISABLE_AFTER_MS });
  });
  after(async () => {
    await t.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  /** An SMS agent whose callback URL is a receiver on loopback that verifies every post with the standardwebhooks library. */
  async function agentWithReceiver(agentId: string, respond: NonNullable<CallbackReceiver['respond']>) {
    let secret: string | undefined;
    const receiver = await startCallbackReceiver(() => secret);
    receivers.push(receiver);
    receiver.respond = respond;
    const agent = await provisionAgent(t, agentId, ['sms']);
    const set = await t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl: receiver.url } });
    assert.equal(set.status, 200);
    secret = ((await set.json()) as { signingSecret: string }).signingSecret;
    const inbound = async (body: string) => {
      const res = await t.sim.inbound.sms({ agentId, from: CUSTOMER, to: agent.channels.sms!.address, body });
      assert.equal(res.status, 200);
    };
    return { agent, receiver, inbound };
  }

  const log = async (agentId: string, query = ''): Promise<Log> => {
    const res = await t.call('GET', `/admin/api/agents/${agentId}/callback-log${query}`, { token: t.orchestratorToken });
    assert.equal(res.status, 200);
    return (await res.json()) as Log;
  };
  const replay = (agentId: string, json: unknown) => t.call('POST', `/admin/api/agents/${agentId}/callback-replay`, { token: t.orchestratorToken, json });
  const letters = async (agentId: string) => {
    const res = await t.call('GET', `/admin/api/dead-letters?agentId=${agentId}`, { token: t.orchestratorToken });
    return ((await res.json()) as { deadLetters: { reason: string; attempts: number; body: string; error: string | null }[] }).deadLetters;
  };
  it('retries after a 500 and delivers; the log has both attempts, each signed with the same webhook-id', async () => {
    const { receiver, inbound } = await agentWithReceiver('cb-retry', (_e, n) => (n === 1 ? { status: 500, body: 'try again later' } : { status: 204 }));
    await inbound('hello twice');
    await eventually(async () => receiver.posts.length >= 2, { timeoutMs: 15_000, intervalMs: 50, message: 'two posts' });
    const { attempts, endpoint } = await eventually(
      async () => {
        const page = await log('cb-retry');
        return page.attempts.length === 2 && page;
      },
      { timeoutMs: 15_000, intervalMs: 50, message: 'both attempts logged' },
    );
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.statusCode, a.outcome, a.responseExcerpt, a.url]),
      [
        [2, 204, 'delivered', null, receiver.url],
        [1, 500, 'retrying', 'try again later', receiver.url],
      ],
    );
    const [second, first] = receiver.posts;
    assert.equal(first!.headers['webhook-id'], second!.headers['webhook-id']);
    assert.ok(attempts.every((a) => a.eventId === first!.event.id && a.latencyMs >= 0 && a.error === null));
    assert.ok(Date.parse(attempts[0]!.createdAt) - Date.parse(attempts[1]!.createdAt) >= 100, 'the second attempt waited for the schedule');
    assert.deepEqual(endpoint && [endpoint.failingSince, endpoint.disabledAt], [null, null]);
    await sleep(400);
    assert.equal(receiver.posts.length, 2, 'no post after the delivery');
    assert.deepEqual(await letters('cb-retry'), []);
  });

  it('webhook-delivery: abort-message and 410 end the retries at once; the message becomes a dead letter', async () => {
    for (const [agentId, answer] of [
      ['cb-abort', { status: 422, headers: { 'webhook-delivery': 'abort-message' }, body: 'not for us' }],
      ['cb-gone', { status: 410 }],
    ] as const) {
      const { receiver, inbound } = await agentWithReceiver(agentId, () => answer);
      await inbound('refused for good');
      const [letter] = await eventually(
        async () => {
          const found = await letters(agentId);
          return found.length > 0 && found;
        },
        { timeoutMs: 15_000, intervalMs: 50, message: 'dead-lettered' },
      );
      assert.equal(letter!.reason, 'callback_failed');
      assert.equal(letter!.attempts, 1);
      assert.match(letter!.error ?? '', /refused for good/);
      await sleep(400);
      assert.equal(receiver.posts.length, 1, `${agentId}: one post, no retry`);
      const { attempts } = await log(agentId);
      assert.deepEqual(attempts.map((a) => [a.attempt, a.statusCode, a.outcome]), [[1, answer.status, 'refused']]);
    }
  });

  it('logs every attempt until the schedule runs out, and pages the log newest first', async () => {
    const { receiver, inbound } = await agentWithReceiver('cb-exhaust', () => ({ status: 503, body: 'x'.repeat(2000) }));
    await inbound('never taken');
    await eventually(async () => (await letters('cb-exhaust')).length > 0, { timeoutMs: 15_000, intervalMs: 50, message: 'dead-lettered' });
    assert.equal(receiver.posts.length, 3);
    const first = await log('cb-exhaust', '?limit=2');
    assert.deepEqual(first.attempts.map((a) => [a.attempt, a.statusCode, a.outcome]), [[3, 503, 'failed'], [2, 503, 'retrying']]);
    assert.equal(first.attempts[0]!.responseExcerpt!.length, 512, 'the answer is cut to 512 bytes');
    assert.ok(first.nextCursor);
    const second = await log('cb-exhaust', `?limit=2&cursor=${first.nextCursor}`);
    assert.deepEqual(second.attempts.map((a) => a.attempt), [1]);
    assert.equal(second.nextCursor, null);
    assert.deepEqual((await letters('cb-exhaust')).map((l) => [l.reason, l.attempts]), [['callback_failed', 3]]);
  });

  it('replays one event, and a time range, on a new round of the schedule with the same webhook-id', async () => {
    let up = false;
    const { receiver, inbound } = await agentWithReceiver('cb-replay', () => (up ? { status: 200 } : { status: 500 }));
    await inbound('first');
    await inbound('second');
    await eventually(async () => (await letters('cb-replay')).length === 2, { timeoutMs: 15_000, intervalMs: 50, message: 'both dead-lettered' });
    const eventIds = [...new Set(receiver.posts.map((p) => p.event.id))];
    assert.equal(eventIds.length, 2);
    up = true;

    const one = await replay('cb-replay', { eventId: eventIds[0] });
    assert.equal(one.status, 200);
    assert.deepEqual(await one.json(), { agentId: 'cb-replay', replayed: 1, eventIds: [eventIds[0]] });
    await eventually(async () => receiver.events.length === 1, { timeoutMs: 15_000, intervalMs: 50, message: 'the replayed event delivered' });
    assert.equal(receiver.events[0]!.event.id, eventIds[0]);
    assert.equal(receiver.events[0]!.headers['webhook-id'], eventIds[0]);
    // The attempt is logged once its post has been answered: the receiver may see the post first.
    await eventuallyPasses(
      async () => {
        const top = (await log('cb-replay', '?limit=1')).attempts[0]!;
        assert.deepEqual([top.eventId, top.attempt, top.outcome], [eventIds[0], 1, 'delivered']);
      },
      { timeoutMs: 15_000, intervalMs: 50 },
    );

    const range = await replay('cb-replay', { since: new Date(Date.now() - 60_000).toISOString(), until: new Date(Date.now() + 60_000).toISOString() });
    assert.equal(range.status, 200);
    assert.equal(((await range.json()) as { replayed: number }).replayed, 2);
    await eventually(async () => receiver.events.length === 3, { timeoutMs: 15_000, intervalMs: 50, message: 'both events delivered again' });
    assert.deepEqual(new Set(receiver.events.slice(1).map((e) => e.event.id)), new Set(eventIds));
    const empty = await replay('cb-replay', { since: '2020-01-01T00:00:00Z', until: '2020-01-02T00:00:00Z' });
    assert.deepEqual(await empty.json(), { agentId: 'cb-replay', replayed: 0, eventIds: [] });
  });

  it('disables an endpoint failing for longer than the setting, with a dashboard alert; a replay enables it again', async () => {
    let up = false;
    const { receiver, inbound } = await agentWithReceiver('cb-disable', () => (up ? { status: 200 } : { status: 500 }));
    const alerts = async () => {
      const res = await t.call('GET', '/admin/api/dashboard', { token: t.orchestratorToken });
      return ((await res.json()) as { alerts: { level: string; message: string }[] }).alerts.filter((a) => a.message.includes('cb-disable'));
    };
    await inbound('one');
    await eventually(async () => (await letters('cb-disable')).length === 1, { timeoutMs: 15_000, intervalMs: 50, message: 'the first event ran out of attempts' });
    const failingSince = Date.parse((await log('cb-disable')).endpoint!.failingSince!);
    assert.equal((await log('cb-disable')).endpoint!.disabledAt, null);
    assert.deepEqual(await alerts(), []);
    await sleep(Math.max(0, failingSince + DISABLE_AFTER_MS + 100 - Date.now()));

    await inbound('two');
    const disabled = await eventually(async () => (await log('cb-disable')).endpoint?.disabledAt ?? undefined, { timeoutMs: 15_000, intervalMs: 50, message: 'disabled' });
    assert.ok(Date.parse(disabled) - failingSince >= DISABLE_AFTER_MS);
    const [alert] = await alerts();
    assert.equal(alert?.level, 'critical');
    assert.match(alert!.message, /Callbacks to agent cb-disable are disabled/);
    await eventually(async () => (await letters('cb-disable')).length === 2, { timeoutMs: 15_000, intervalMs: 50, message: 'the second event dead-lettered' });

    const posts = receiver.posts.length;
    await inbound('three');
    const third = await eventually(async () => (await letters('cb-disable')).find((l) => l.body === 'three'), { timeoutMs: 15_000, intervalMs: 50, message: 'the third event dead-lettered without a post' });
    assert.match(third.error ?? '', /disabled/);
    assert.equal(receiver.posts.length, posts, 'no post to a disabled endpoint');

    up = true;
    const res = await replay('cb-disable', { since: new Date(Date.now() - 60_000).toISOString(), until: new Date(Date.now() + 60_000).toISOString() });
    assert.equal(((await res.json()) as { replayed: number }).replayed, 3);
    assert.deepEqual((await log('cb-disable')).endpoint && [(await log('cb-disable')).endpoint!.disabledAt], [null]);
    assert.deepEqual(await alerts(), []);
    await eventually(async () => receiver.events.length === 3, { timeoutMs: 15_000, intervalMs: 50, message: 'all three delivered' });
    assert.deepEqual(receiver.events.map((e) => e.event.data.body).sort(), ['one', 'three', 'two']);
  });

  it('a callback URL set again, even the same one, enables a disabled endpoint', async () => {
    let up = false;
    const { agent, receiver, inbound } = await agentWithReceiver('cb-reset', () => (up ? { status: 200 } : { status: 500 }));
    await inbound('one');
    await eventually(async () => (await letters('cb-reset')).length === 1, { timeoutMs: 15_000, intervalMs: 50, message: 'the first event ran out of attempts' });
    const failingSince = Date.parse((await log('cb-reset')).endpoint!.failingSince!);
    await sleep(Math.max(0, failingSince + DISABLE_AFTER_MS + 100 - Date.now()));
    await inbound('two');
    await eventually(async () => (await log('cb-reset')).endpoint?.disabledAt ?? undefined, { timeoutMs: 15_000, intervalMs: 50, message: 'disabled' });
    await eventually(async () => (await letters('cb-reset')).length === 2, { timeoutMs: 15_000, intervalMs: 50, message: 'the second event dead-lettered' });

    up = true;
    const set = await t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl: receiver.url } });
    assert.equal(set.status, 200);
    assert.deepEqual((await log('cb-reset')).endpoint && [(await log('cb-reset')).endpoint!.disabledAt, (await log('cb-reset')).endpoint!.failingSince], [null, null]);
    await inbound('three');
    const [taken] = await receiver.waitFor(1, 10_000);
    assert.equal(taken!.event.data.body, 'three');
  });

  it('bad input to the log and replay routes gets the contract error body', async () => {
    await provisionAgent(t, 'cb-bad', ['sms']);
    const cases: [string, string, unknown, number, string][] = [
      ['GET', '/admin/api/agents/cb-bad/callback-log?limit=0', undefined, 400, 'VALIDATION_FAILED'],
      ['GET', '/admin/api/agents/cb-bad/callback-log?cursor=nope', undefined, 400, 'VALIDATION_FAILED'],
      ['GET', '/admin/api/agents/cb-bad/callback-log?color=red', undefined, 400, 'BAD_REQUEST'],
      ['GET', '/admin/api/agents/cb-none/callback-log', undefined, 404, 'NOT_FOUND'],
      ['POST', '/admin/api/agents/cb-bad/callback-replay', {}, 400, 'VALIDATION_FAILED'],
      ['POST', '/admin/api/agents/cb-bad/callback-replay', { eventId: 'evt_1', since: '2026-01-01T00:00:00Z' }, 400, 'VALIDATION_FAILED'],
      ['POST', '/admin/api/agents/cb-bad/callback-replay', { since: '2026-01-01T00:00:00Z' }, 400, 'VALIDATION_FAILED'],
      ['POST', '/admin/api/agents/cb-bad/callback-replay', { since: 'yesterday', until: '2026-01-01T00:00:00Z' }, 400, 'VALIDATION_FAILED'],
      ['POST', '/admin/api/agents/cb-bad/callback-replay', { since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' }, 400, 'VALIDATION_FAILED'],
      ['POST', '/admin/api/agents/cb-bad/callback-replay', { eventId: 'evt_unknown' }, 404, 'NOT_FOUND'],
      ['POST', '/admin/api/agents/cb-bad/callback-replay', { eventId: 'evt_1', extra: true }, 400, 'BAD_REQUEST'],
      ['POST', '/admin/api/agents/cb-none/callback-replay', { eventId: 'evt_1' }, 404, 'NOT_FOUND'],
    ];
    for (const [method, path, json, status, code] of cases) {
      const res = await t.call(method, path, { token: t.orchestratorToken, ...(json === undefined ? {} : { json }) });
      const body = (await res.json()) as { error: string; code: string };
      assert.deepEqual([res.status, body.code], [status, code], `${method} ${path} ${JSON.stringify(json)}: ${JSON.stringify(body)}`);
      assert.equal(typeof body.error, 'string');
    }
    const anonymous = await t.call('GET', '/admin/api/agents/cb-bad/callback-log');
    assert.equal(anonymous.status, 401);
    const agentToken = (await provisionAgent(t, 'cb-bad-2', ['sms'])).securityToken;
    assert.equal((await t.call('POST', '/admin/api/agents/cb-bad/callback-replay', { token: agentToken, json: { eventId: 'evt_1' } })).status, 403);
  });
});
