import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { agentEvent, CallbackSender, excerpt, type CallbackPolicy, type CallbackTurn } from '../src/delivery/agent-events.js';
import { parseRetrySchedule } from '../src/settings/retry-schedule.js';
import { createLogger } from '../src/logger.js';
import { newSigningSecret } from '../src/provisioning/provisioner.js';
import { SecretBox } from '../src/secrets.js';
import { checkSettings } from '../src/settings/load.js';
import { openStore, type Store } from '../src/store/store.js';

// The retry schedule and the endpoint disable, judged by an injected clock: a day of retries and five
// days of failures run in milliseconds, against a real receiver on loopback that verifies each post.
const logger = createLogger({ level: 'silent', pretty: false });
const box = new SecretBox(randomBytes(32));
const secret = newSigningSecret();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const DEFAULT_SCHEDULE = parseRetrySchedule('0,5s,5m,30m,2h,5h,10h,10h');

let store: Store;
let dataDir: string;
let url = '';
let answer = 500;
let verified = 0;
const closers: (() => Promise<unknown>)[] = [];

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sb-callback-schedule-'));
  store = await openStore({ dataDir });
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      new Webhook(secret).verify(Buffer.concat(chunks).toString('utf8'), headers);
      verified++;
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  closers.push(() => new Promise((r) => http.close(r)));
  url = `http://127.0.0.1:${(http.address() as { port: number }).port}/hooks`;
});
after(async () => {
  for (const close of closers) await close();
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A clock the test moves. */
function clock(start = Date.parse('2026-03-01T00:00:00Z')) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

async function agent(agentId: string, callbackUrl = url): Promise<void> {
  const now = new Date().toISOString();
  await store.agents.insert(store.db, {
    agentId, displayName: agentId, status: 'active', blockedChannels: [], callbackUrl, sealedSigningSecret: box.seal(secret),
    greeting: null, systemPrompt: null, voice: null, language: null, channels: [], createdAt: now, updatedAt: now,
  });
}

function sender(time: { now: () => number }, overrides: Partial<CallbackPolicy> = {}) {
  return new CallbackSender(store, { scheduleMs: DEFAULT_SCHEDULE, timeoutMs: 2000, disableAfterMs: 5 * DAY, now: time.now, ...overrides }, logger);
}

/** Keeps a new event of `agentId` and runs its turns, moving the clock by each wait, until it is over. Returns the waits and the last turn. */
async function runOut(agentId: string, time: ReturnType<typeof clock>, make = () => sender(time)): Promise<{ waits: number[]; last: CallbackTurn }> {
  const event = agentEvent('message.status', agentId, { status: 'delivered' });
  await store.callbacks.keep(event, null, new Date(time.now()));
  const waits: number[] = [];
  for (;;) {
    const turn = await make().turn((await store.callbacks.event(event.id))!, { url, secret });
    if (turn.kind !== 'later') return { waits, last: turn };
    waits.push(turn.delayMs);
    time.advance(turn.delayMs);
  }
}

describe('the callback retry schedule', () => {
  it('parses the setting, and the settings schema refuses a bad one', () => {
    assert.deepEqual(DEFAULT_SCHEDULE, [0, 5000, 300_000, 1_800_000, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]);
    assert.deepEqual(parseRetrySchedule(' 0 , 250ms,2,48h'), [0, 250, 2, DAY], 'a wait is at most a day');
    assert.throws(() => parseRetrySchedule('5 minutes'));
    assert.throws(() => parseRetrySchedule(''));
    assert.throws(() => checkSettings({ CALLBACK_RETRY_SCHEDULE: '1,2,x' }), /CALLBACK_RETRY_SCHEDULE/);
    assert.equal(checkSettings({}).CALLBACK_RETRY_SCHEDULE, '0,5s,5m,30m,2h,5h,10h,10h');
  });

  it('runs the default schedule: eight attempts over about 28 hours, each wait from the stored last attempt, across restarts', async () => {
    await agent('sched-1');
    const time = clock();
    const before = verified;
    // A new sender per turn: nothing of the schedule is held in memory, as after a restart.
    const { waits, last } = await runOut('sched-1', time, () => sender(time));
    assert.deepEqual(waits, DEFAULT_SCHEDULE.slice(1));
    assert.equal(verified - before, 8, 'one signed post per attempt');
    assert.deepEqual(last.kind === 'over' && last.attempts, 8);
    const log = await store.callbacks.log('sched-1', 100);
    assert.deepEqual(log.map((a) => [a.attempt, a.statusCode, a.outcome]).reverse(), [
      ...Array.from({ length: 7 }, (_, i) => [i + 1, 500, 'retrying']),
      [8, 500, 'failed'],
    ]);
    assert.equal(Date.parse(log[0]!.createdAt) - Date.parse(log.at(-1)!.createdAt), DEFAULT_SCHEDULE.reduce((a, b) => a + b, 0));
  });

  it('a turn before the event is due posts nothing and says how long to wait', async () => {
    await agent('sched-2');
    const time = clock();
    const event = agentEvent('message.status', 'sched-2', { status: 'sent' });
    await store.callbacks.keep(event, null, new Date(time.now()));
    const first = await sender(time).turn((await store.callbacks.event(event.id))!, { url, secret });
    assert.deepEqual(first.kind === 'later' && first.delayMs, 5000);
    time.advance(1200);
    const posts = verified;
    const early = await sender(time).turn((await store.callbacks.event(event.id))!, { url, secret });
    assert.deepEqual(early.kind === 'later' && early.delayMs, 3800);
    assert.equal(verified, posts);
    assert.equal((await store.callbacks.event(event.id))!.attempts, 1);
  });

  it('disables an endpoint after five days of failures without a success; a success, a replay or a new URL clears it', async () => {
    await agent('sched-3');
    const time = clock();
    answer = 500;
    await runOut('sched-3', time);
    const since = (await store.callbacks.endpoint('sched-3'))!.failingSince!;
    time.advance(2 * DAY);
    await runOut('sched-3', time);
    assert.equal((await store.callbacks.endpoint('sched-3'))!.disabledAt, null, 'some four and a third days of failures');
    assert.equal((await store.callbacks.endpoint('sched-3'))!.failingSince, since, 'the run of failures goes on');
    time.advance(DAY);
    const { last } = await runOut('sched-3', time);
    const endpoint = (await store.callbacks.endpoint('sched-3'))!;
    assert.ok(endpoint.disabledAt, 'five days of failures');
    assert.equal(Date.parse(endpoint.disabledAt) - Date.parse(since) >= 5 * DAY, true);
    assert.match(last.kind === 'over' ? last.reason : '', /disabled/);
    assert.deepEqual((await store.callbacks.disabledEndpoints()).map((e) => e.agentId), ['sched-3']);

    const posts = verified;
    const skipped = await runOut('sched-3', time);
    assert.match(skipped.last.kind === 'over' ? skipped.last.reason : '', /disabled since/);
    assert.equal(verified, posts, 'no post to a disabled endpoint');

    // A new URL is a new endpoint: enabled, and gone from the alerts.
    await store.db.execute("UPDATE agents SET callback_url = 'http://127.0.0.1:9/other' WHERE agent_id = 'sched-3'");
    assert.deepEqual(await store.callbacks.disabledEndpoints(), []);
    await store.db.execute('UPDATE agents SET callback_url = ? WHERE agent_id = ?', [url, 'sched-3']);
    assert.equal((await store.callbacks.disabledEndpoints()).length, 1);

    const replayed = await store.callbacks.replay('sched-3', { since: new Date(0).toISOString(), until: new Date(time.now() + 1).toISOString() });
    assert.equal(replayed.length, 4);
    assert.ok(replayed.every((e) => e.state === 'pending' && e.attempts === 0 && e.replays === 1));
    assert.deepEqual([(await store.callbacks.endpoint('sched-3'))!.disabledAt, (await store.callbacks.endpoint('sched-3'))!.failingSince], [null, null]);

    answer = 200;
    const delivered = await sender(time).turn((await store.callbacks.event(replayed[0]!.eventId))!, { url, secret });
    assert.equal(delivered.kind, 'delivered');
    answer = 500;
  });

  it('keeps at most 512 bytes of an answer, never half a character', () => {
    assert.equal(excerpt(''), null);
    assert.equal(excerpt('ok'), 'ok');
    const cut = excerpt('é'.repeat(400))!;
    assert.equal(Buffer.byteLength(cut), 512);
    const odd = excerpt('a' + 'é'.repeat(400))!;
    assert.equal(Buffer.byteLength(odd), 511);
    assert.ok(!odd.includes('\uFFFD'));
  });
});
