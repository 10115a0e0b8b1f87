import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import twilio from 'twilio';
import { startSimulator, type Simulator } from '../src/index.js';
import { formParams, startReceiver, twilioClientFor, type WebhookReceiver } from './helpers.js';

const SENDER = 'whatsapp:+15555550100';
const DAY_MS = 24 * 60 * 60 * 1000;

describe("Twilio WhatsApp: the 24-hour service window and the Content API", () => {
  let sim: Simulator;
  let client: twilio.Twilio;
  let receiver: WebhookReceiver;

  before(async () => {
    sim = await startSimulator({ statusCallbackDelayMs: 10 });
    client = twilioClientFor(sim);
    receiver = await startReceiver();
    sim.gatewayUrl = receiver.url;
  });
  after(async () => {
    await sim.close();
    await receiver.close();
  });

  /** The status callbacks of one message, once `count` of them came. */
  async function callbacksOf(sid: string, count: number) {
    for (let seen = receiver.received.length; ; seen++) {
      await receiver.waitFor(seen + 1);
      const mine = receiver.received.filter((w) => w.path === '/status' && formParams(w.body)['MessageSid'] === sid).map((w) => formParams(w.body));
      if (mine.length >= count) return mine;
    }
  }

  it('takes a free-form message to a user who never wrote, then fails it with 63016', async () => {
    const user = 'whatsapp:+15551230101';
    const message = await client.messages.create({ to: user, from: SENDER, body: 'Hello?', statusCallback: `${receiver.url}/status` });
    assert.equal(message.status, 'queued', 'Twilio takes it first');
    const [failed] = await callbacksOf(message.sid, 1);
    assert.deepEqual([failed?.['MessageStatus'], failed?.['ErrorCode']], ['failed', '63016']);
    const fetched = await client.messages(message.sid).fetch();
    assert.deepEqual([fetched.status, fetched.errorCode], ['failed', 63016]);
  });

  it('opens the window when the user writes, and closes it 24 hours later on the moved clock', async () => {
    const user = '+15551230102';
    await sim.inbound.whatsapp({ agentId: 'bot', from: user, to: SENDER.slice('whatsapp:'.length), body: 'Hi' });
    const inside = await client.messages.create({ to: `whatsapp:${user}`, from: SENDER, body: 'Hello again', statusCallback: `${receiver.url}/status` });
    const statuses = (await callbacksOf(inside.sid, 2)).map((p) => p['MessageStatus']);
    assert.deepEqual(statuses, ['sent', 'delivered']);

    const before = sim.clock.now().getTime();
    const moved = await fetch(`${sim.url}/_sim/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceMs: DAY_MS }) });
    const clock = (await moved.json()) as { now: string; offsetMs: number };
    assert.equal(moved.status, 200);
    assert.ok(Date.parse(clock.now) - before >= DAY_MS);
    const outside = await client.messages.create({ to: `whatsapp:${user}`, from: SENDER, body: 'A day later', statusCallback: `${receiver.url}/status` });
    assert.equal((await callbacksOf(outside.sid, 1))[0]?.['ErrorCode'], '63016');
    assert.equal((await fetch(`${sim.url}/_sim/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"advanceMs":-1}' })).status, 400);
  });

  it('lists the approved and pending templates, and sends one outside the window with its variables filled', async () => {
    const templates = await client.content.v1.contentAndApprovals.list({ pageSize: 2 });
    assert.deepEqual(
      templates.map((t) => [t.friendlyName, (t.approvalRequests as { status?: string }).status]),
      [
        ['appointment_reminder', 'approved'],
        ['order_update', 'approved'],
        ['spring_offer', 'pending'],
      ],
      'every page, through next_page_url',
    );
    const reminder = templates[0]!;
    assert.match(reminder.sid, /^HX[0-9a-f]{32}$/);
    const user = 'whatsapp:+15551230103';
    const message = await client.messages.create({
      to: user,
      from: SENDER,
      contentSid: reminder.sid,
      contentVariables: JSON.stringify({ 1: 'Sam', 2: 'Friday at 9:00' }),
      statusCallback: `${receiver.url}/status`,
    });
    assert.equal(message.body, 'Hello Sam, this is a reminder of your appointment on Friday at 9:00. Reply here to confirm or change it.');
    assert.deepEqual((await callbacksOf(message.sid, 2)).map((p) => p['MessageStatus']), ['sent', 'delivered']);
    const [sent] = sim.messages({ provider: 'twilio', to: user });
    assert.deepEqual([sent?.contentSid, sent?.contentVariables], [reminder.sid, { 1: 'Sam', 2: 'Friday at 9:00' }]);

    await assert.rejects(client.messages.create({ to: user, from: SENDER, contentSid: `HX${'0'.repeat(32)}` }), (err: { code?: number }) => err.code === 21655);
    await assert.rejects(client.messages.create({ to: user, from: SENDER, contentSid: reminder.sid, contentVariables: '[1]' }), (err: { code?: number }) => err.code === 21656);
  });
});
