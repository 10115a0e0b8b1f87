import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startSimulator } from '../src/index.js';
import { RingBuffer } from '../src/ring-buffer.js';
import { startReceiver, twilioClientFor } from './helpers.js';

describe('RingBuffer', () => {
  it('keeps the last `capacity` items, oldest first', () => {
    const ring = new RingBuffer<number>(3);
    assert.deepEqual(ring.toArray(), []);
    for (let i = 1; i <= 7; i++) ring.push(i);
    assert.deepEqual(ring.toArray(), [5, 6, 7]);
    assert.equal(ring.size, 3);
    ring.clear();
    assert.deepEqual(ring.toArray(), []);
    assert.throws(() => new RingBuffer(0), RangeError);
  });
});

describe('recording', () => {
  it('stays bounded under many requests', async () => {
    const sim = await startSimulator({ recordLimit: 5, statusCallbacks: false });
    try {
      const client = twilioClientFor(sim);
      for (let i = 0; i < 12; i++) await client.messages.create({ to: '+15551230001', from: '+15555550100', body: `m${i}` });
      const requests = sim.requests();
      assert.equal(requests.length, 5);
      assert.deepEqual(requests.map((r) => r.seq), [8, 9, 10, 11, 12]);
      assert.deepEqual(sim.messages().map((m) => m.body), ['m7', 'm8', 'm9', 'm10', 'm11']);
      const [first] = requests;
      assert.equal(first?.provider, 'twilio');
      assert.equal(first?.method, 'POST');
      assert.match(first?.path ?? '', /^\/twilio\/2010-04-01\/Accounts\/AC[0-9a-f]{32}\/Messages\.json$/);
      assert.match(String(first?.headers.authorization), /^Basic /);
      assert.equal((first?.body as Record<string, string>)['Body'], 'm7');
      assert.ok(first?.at instanceof Date);
    } finally {
      await sim.close();
    }
  });

  it('reset forgets traffic, resources and faults', async () => {
    const sim = await startSimulator({ statusCallbacks: false });
    try {
      const client = twilioClientFor(sim);
      const message = await client.messages.create({ to: '+15551230001', from: '+15555550100', body: 'x' });
      sim.faults.add({ provider: 'resend', status: 500 });
      sim.reset();
      assert.equal(sim.requests().length, 0);
      assert.equal(sim.messages().length, 0);
      assert.deepEqual(sim.faults.list(), []);
      await assert.rejects(client.messages(message.sid).fetch(), /not found/);
    } finally {
      await sim.close();
    }
  });

  it('serves recordings and inbound sends over the control API', async () => {
    const gateway = await startReceiver();
    const sim = await startSimulator({ statusCallbacks: false, gatewayUrl: gateway.url });
    try {
      await twilioClientFor(sim).messages.create({ to: '+15551230001', from: '+15555550100', body: 'via sdk' });
      const messages = (await (await fetch(`${sim.url}/_sim/messages?channel=sms`)).json()) as { messages: { body: string }[]; count: number };
      assert.equal(messages.count, 1);
      assert.equal(messages.messages[0]?.body, 'via sdk');
      const requests = (await (await fetch(`${sim.url}/_sim/requests?provider=twilio`)).json()) as { requests: { status: number }[] };
      assert.deepEqual(requests.requests.map((r) => r.status), [201]);
      const info = (await (await fetch(`${sim.url}/_sim/info`)).json()) as { baseUrls: { twilio: string }; credentials: { twilio: { accountSid: string } } };
      assert.equal(info.baseUrls.twilio, sim.baseUrls.twilio);
      assert.equal(info.credentials.twilio.accountSid, sim.credentials.twilio.accountSid);

      const sent = await fetch(`${sim.url}/_sim/inbound/sms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agentId: 'demo', from: '+15551112222', to: '+15555550100', body: 'hello via curl' }),
      });
      assert.equal(sent.status, 200);
      const result = (await sent.json()) as { status: number; body: string; id: string };
      assert.equal(result.status, 200);
      assert.equal(result.body, '<Response/>');
      assert.match(result.id, /^SM/);
      assert.equal(gateway.received[0]?.path, '/webhooks/demo/sms');

      const missing = await fetch(`${sim.url}/_sim/inbound/sms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agentId: 'demo' }) });
      assert.equal(missing.status, 400);
      const unknownKind = await fetch(`${sim.url}/_sim/inbound/fax`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(unknownKind.status, 404);
      sim.gatewayUrl = undefined;
      const noTarget = await fetch(`${sim.url}/_sim/inbound/line`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agentId: 'demo', userId: 'U1', text: 'x' }) });
      assert.equal(noTarget.status, 400);

      assert.equal((await fetch(`${sim.url}/_sim/reset`, { method: 'POST' })).status, 200);
      assert.equal(sim.messages().length, 0);
      assert.equal((await fetch(`${sim.url}/nowhere`)).status, 404);
    } finally {
      await sim.close();
      await gateway.close();
    }
  });
});
