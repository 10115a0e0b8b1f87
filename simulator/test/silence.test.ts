import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Resend } from 'resend';
import { startSimulator } from '../src/index.js';
import { startReceiver, twilioClientFor } from './helpers.js';

const FROM = '+15555550100';
const TO = '+15551230001';
const settle = () => new Promise((r) => setTimeout(r, 150));

describe('A silenced provider: the outcome without the callback', () => {
  it('Twilio: delivered or undelivered on a fetch, and no callback posted', async () => {
    const sim = await startSimulator({ statusCallbackDelayMs: 10 });
    const receiver = await startReceiver();
    try {
      const client = twilioClientFor(sim);
      sim.silence('twilio', 'delivered');
      const delivered = await client.messages.create({ to: TO, from: FROM, body: 'quiet', statusCallback: `${receiver.url}/s` });
      sim.silence('twilio', 'undelivered');
      const lost = await client.messages.create({ to: TO, from: FROM, body: 'lost', statusCallback: `${receiver.url}/s` });
      sim.silence('twilio', 'sent');
      const stuck = await client.messages.create({ to: TO, from: FROM, body: 'stuck', statusCallback: `${receiver.url}/s` });
      await settle();
      assert.equal(receiver.received.length, 0, 'no callback');
      const fetched = await client.messages(delivered.sid).fetch();
      assert.deepEqual([fetched.status, fetched.price], ['delivered', '-0.00790']);
      const failed = await client.messages(lost.sid).fetch();
      assert.deepEqual([failed.status, failed.errorCode], ['undelivered', 30003]);
      assert.equal((await client.messages(stuck.sid).fetch()).status, 'sent');
      // Undone: callbacks again.
      sim.silence('twilio', undefined);
      await client.messages.create({ to: TO, from: FROM, body: 'loud', statusCallback: `${receiver.url}/s` });
      await receiver.waitFor(2, 3000);
    } finally {
      await sim.close();
      await receiver.close();
    }
  });

  it('Twilio: a call ends without its status callback; a Calls fetch tells', async () => {
    const sim = await startSimulator({ statusCallbackDelayMs: 10 });
    const receiver = await startReceiver();
    try {
      sim.silence('twilio', 'delivered');
      const call = await sim.phone.call({ url: `${receiver.url}/voice`, from: TO, to: FROM, statusCallback: `${receiver.url}/status`, statusCallbackEvents: ['completed'] });
      await call.done;
      await settle();
      assert.deepEqual(receiver.received.map((w) => w.path), ['/voice'], 'the voice webhook only');
      assert.equal((await twilioClientFor(sim).calls(call.callSid).fetch()).status, 'completed');
    } finally {
      await sim.close();
      await receiver.close();
    }
  });

  it('Resend: last_event delivered or bounced; the control API sets and clears it', async () => {
    const sim = await startSimulator({ statusCallbackDelayMs: 10 });
    try {
      const resend = new Resend(sim.credentials.resend.apiKey, { baseUrl: sim.baseUrls.resend });
      const send = async () => (await resend.emails.send({ from: 'agent@switchboard.test', to: 'ada@example.com', subject: 's', text: 't' })).data!.id;
      const silence = (body: unknown) => fetch(`${sim.url}/_sim/silence`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.equal((await silence({ provider: 'resend', outcome: 'delivered' })).status, 200);
      const delivered = await send();
      assert.equal((await silence({ provider: 'resend', outcome: 'undelivered' })).status, 200);
      const bounced = await send();
      assert.equal((await silence({ provider: 'resend', outcome: null })).status, 200);
      const untouched = await send();
      await settle();
      const lastEvent = async (id: string) => (await resend.emails.get(id)).data!.last_event;
      assert.deepEqual([await lastEvent(delivered), await lastEvent(bounced), await lastEvent(untouched)], ['delivered', 'bounced', 'sent']);
      assert.equal((await silence({ provider: 'line', outcome: 'sent' })).status, 400);
      assert.equal((await silence({ provider: 'twilio', outcome: 'lost' })).status, 400);
    } finally {
      await sim.close();
    }
  });
});
