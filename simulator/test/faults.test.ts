import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { HTTPFetchError, messagingApi } from '@line/bot-sdk';
import { Resend } from 'resend';
import twilio from 'twilio';
import { startSimulator, type Simulator } from '../src/index.js';
import { twilioClientFor } from './helpers.js';

const SMS = { to: '+15551230001', from: '+15555550100', body: 'x' };

describe('fault injection', () => {
  let sim: Simulator;

  before(async () => {
    sim = await startSimulator({ statusCallbacks: false });
  });
  afterEach(() => sim.reset());
  after(() => sim.close());

  it('answers 429 in Twilio shape with Retry-After', async () => {
    sim.faults.add({ provider: 'twilio', pathIncludes: '/Messages.json', status: 429, retryAfterSeconds: 7 });
    await assert.rejects(twilioClientFor(sim).messages.create(SMS), (err: twilio.RestException) => {
      assert.equal(err.status, 429);
      assert.equal(err.code, 20429);
      return true;
    });
    const res = await fetch(`${sim.baseUrls.twilio}/2010-04-01/Accounts/${sim.credentials.twilio.accountSid}/Messages.json`, { method: 'POST' });
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '7');
    assert.equal(sim.messages().length, 0, 'nothing was sent');
    assert.equal(sim.requests('twilio')[0]?.fault, 'status');
  });

  it('answers 500 in Resend shape', async () => {
    sim.faults.add({ provider: 'resend', status: 500 });
    const resend = new Resend(sim.credentials.resend.apiKey, { baseUrl: sim.baseUrls.resend });
    const { error } = await resend.emails.send({ from: 'a@switchboard.test', to: 'b@example.com', subject: 's', text: 't' });
    assert.equal(error?.statusCode, 500);
    assert.equal(error?.name, 'application_error');
  });

  it('answers 503 in LINE shape, and leaves other providers alone', async () => {
    sim.faults.add({ provider: 'line', status: 503 });
    const line = new messagingApi.MessagingApiClient({ channelAccessToken: sim.credentials.line.channelAccessToken, baseURL: sim.baseUrls.line });
    await assert.rejects(line.getBotInfo(), (err: HTTPFetchError) => err.status === 503 && typeof JSON.parse(err.body).message === 'string');
    const account = await twilioClientFor(sim).api.v2010.accounts(sim.credentials.twilio.accountSid).fetch();
    assert.equal(account.status, 'active');
  });

  it('applies `times` to the next N matching requests only', async () => {
    sim.faults.add({ provider: 'twilio', method: 'POST', status: 500, times: 2 });
    const client = twilioClientFor(sim);
    for (let i = 0; i < 2; i++) {
      await assert.rejects(client.messages.create(SMS), (err: twilio.RestException) => err.status === 500 && err.code === 20500);
    }
    const third = await client.messages.create(SMS);
    assert.match(third.sid, /^SM/);
    assert.deepEqual(sim.faults.list(), []);
    assert.deepEqual(sim.requests('twilio').map((r) => r.status), [500, 500, 201]);
  });

  it('adds latency', async () => {
    sim.faults.add({ provider: 'elevenlabs', latencyMs: 250, times: 1 });
    const get = () => fetch(`${sim.baseUrls.elevenlabs}/v1/voices`, { headers: { 'xi-api-key': sim.credentials.elevenlabs.apiKey } });
    let started = performance.now();
    assert.equal((await get()).status, 200);
    assert.ok(performance.now() - started >= 240, 'delayed');
    started = performance.now();
    await get();
    assert.ok(performance.now() - started < 200, 'only once');
    assert.equal(sim.requests('elevenlabs')[0]?.fault, 'latency');
  });

  it('holds a request open until the client gives up', async () => {
    sim.faults.add({ provider: 'twilio', timeout: true, times: 1 });
    const started = performance.now();
    await assert.rejects(twilioClientFor(sim, { timeout: 300 }).messages.create(SMS), /timeout/i);
    const waited = performance.now() - started;
    assert.ok(waited >= 280 && waited < 2000, `gave up after ${waited} ms`);
    assert.equal(sim.requests('twilio')[0]?.status, 0);
    assert.equal(sim.messages().length, 0);
    const after = await twilioClientFor(sim).messages.create(SMS);
    assert.match(after.sid, /^SM/);
  });

  it('fires at errorRate', async () => {
    sim.faults.add({ provider: 'elevenlabs', errorRate: 0.5, status: 503 });
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${sim.baseUrls.elevenlabs}/v1/user`, { headers: { 'xi-api-key': sim.credentials.elevenlabs.apiKey } });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    const failed = statuses.filter((s) => s === 503).length;
    assert.ok(failed > 60 && failed < 140, `${failed} of 200 failed`);
    assert.equal(statuses.filter((s) => s !== 503 && s !== 200).length, 0);
  });

  it('is managed over the control API', async () => {
    const post = await fetch(`${sim.url}/_sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ provider: 'resend', status: 503, times: 1 }) });
    assert.equal(post.status, 201);
    assert.equal(sim.faults.list().length, 1);
    const bad = await fetch(`${sim.url}/_sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ errorRate: 3 }) });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: string }).error, /errorRate/);
    const del = await fetch(`${sim.url}/_sim/faults`, { method: 'DELETE' });
    assert.equal(del.status, 200);
    assert.deepEqual(sim.faults.list(), []);
    assert.throws(() => sim.faults.add({ provider: 'smtp' as never }), /Unknown provider/);
  });
});

describe('closing with a request held open', () => {
  it('ends the held request and closes promptly', async () => {
    const sim = await startSimulator();
    sim.faults.add({ timeout: true });
    const pending = fetch(`${sim.baseUrls.resend}/domains`).then(
      () => 'answered',
      () => 'aborted',
    );
    await new Promise((r) => setTimeout(r, 50));
    const started = performance.now();
    await sim.close();
    assert.ok(performance.now() - started < 1000);
    assert.equal(await pending, 'aborted');
  });
});
