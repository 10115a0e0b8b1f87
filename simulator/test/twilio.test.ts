import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@switchboard/runtime/testing';
import twilio from 'twilio';
import { startSimulator, type Simulator } from '../src/index.js';
import { formParams, header, startReceiver, twilioClientFor, type WebhookReceiver } from './helpers.js';

const FROM = '+15555550100';
const TO = '+15551230001';

describe('Twilio API through the twilio SDK', () => {
  let sim: Simulator;
  let client: twilio.Twilio;
  let receiver: WebhookReceiver;

  before(async () => {
    sim = await startSimulator({ statusCallbackDelayMs: 10 });
    client = twilioClientFor(sim);
    receiver = await startReceiver();
  });
  after(async () => {
    await sim.close();
    await receiver.close();
  });

  it('creates an SMS with Twilio fields and records it', async () => {
    const message = await client.messages.create({ to: TO, from: FROM, body: 'Hello from Switchboard', statusCallback: `${receiver.url}/status` });
    assert.match(message.sid, /^SM[0-9a-f]{32}$/);
    assert.equal(message.status, 'queued');
    assert.equal(message.direction, 'outbound-api');
    assert.equal(message.numSegments, '1');
    assert.equal(message.numMedia, '0');
    assert.equal(message.priceUnit, 'USD');
    assert.equal(message.price, null);
    assert.equal(message.accountSid, sim.credentials.twilio.accountSid);
    assert.equal(message.uri, `/2010-04-01/Accounts/${sim.credentials.twilio.accountSid}/Messages/${message.sid}.json`);
    assert.ok(message.dateCreated instanceof Date && !Number.isNaN(message.dateCreated.getTime()));

    const [sent] = sim.messages({ provider: 'twilio', to: TO });
    assert.deepEqual(
      { channel: sent?.channel, id: sent?.id, from: sent?.from, body: sent?.body, statusCallback: sent?.statusCallback },
      { channel: 'sms', id: message.sid, from: FROM, body: 'Hello from Switchboard', statusCallback: `${receiver.url}/status` },
    );
    const recorded = sim.requests('twilio').find((r) => r.method === 'POST');
    assert.deepEqual((recorded?.body as Record<string, string>)['Body'], 'Hello from Switchboard');
    assert.equal(recorded?.status, 201);
  });

  it('answers Twilio RFC 2822 dates on the wire', async () => {
    const res = await fetch(`${sim.baseUrls.twilio}/2010-04-01/Accounts/${sim.credentials.twilio.accountSid}/Messages.json`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${sim.credentials.twilio.accountSid}:${sim.credentials.twilio.authToken}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ To: TO, From: FROM, Body: 'x' }).toString(),
    });
    const json = (await res.json()) as Record<string, unknown>;
    assert.equal(res.status, 201);
    assert.match(String(json['date_created']), /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} \+0000$/);
    assert.equal(json['date_sent'], null);
    assert.equal(json['error_code'], null);
    assert.equal(json['api_version'], '2010-04-01');
    assert.ok(res.headers.get('twilio-request-id')?.startsWith('RQ'));
  });

  it('sends WhatsApp with media and counts UCS-2 segments', async () => {
    const body = 'こんにちは'.repeat(15); // 75 UCS-2 units: two segments
    const message = await client.messages.create({ to: `whatsapp:${TO}`, from: `whatsapp:${FROM}`, body, mediaUrl: ['https://media.example/a.png', 'https://media.example/b.png'] });
    assert.equal(message.numSegments, '2');
    assert.equal(message.numMedia, '2');
    const sent = sim.messages({ channel: 'whatsapp' });
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0]?.mediaUrls, ['https://media.example/a.png', 'https://media.example/b.png']);
    assert.equal(sent[0]?.to, `whatsapp:${TO}`);
  });

  it('accepts a Messaging Service without From', async () => {
    const message = await client.messages.create({ to: TO, messagingServiceSid: `MG${'a'.repeat(32)}`, body: 'pooled' });
    assert.equal(message.status, 'accepted');
    assert.equal(message.from, null);
    assert.equal(message.messagingServiceSid, `MG${'a'.repeat(32)}`);
  });

  it('fetches and lists messages, paging like Twilio', async () => {
    const created = await client.messages.create({ to: '+15551230099', from: FROM, body: 'find me' });
    const fetched = await client.messages(created.sid).fetch();
    assert.equal(fetched.body, 'find me');
    const filtered = await client.messages.list({ to: '+15551230099' });
    assert.deepEqual(filtered.map((m) => m.sid), [created.sid]);
    const all = await client.messages.list({ pageSize: 2 });
    assert.equal(all.length, sim.messages({ provider: 'twilio' }).length);
    assert.ok(all.length > 2, 'paging followed next_page_uri');
  });

  it('refuses bad requests with Twilio error codes', async () => {
    const cases: [Record<string, unknown>, number][] = [
      [{ to: '12345', from: FROM, body: 'x' }, 21211],
      [{ to: TO, from: FROM }, 21602],
      [{ to: `whatsapp:${TO}`, from: FROM, body: 'x' }, 21910],
      [{ to: TO, body: 'x' }, 21603],
      [{ to: TO, from: FROM, body: 'x'.repeat(1601) }, 21617],
    ];
    for (const [params, code] of cases) {
      await assert.rejects(client.messages.create(params as never), (err: twilio.RestException) => {
        assert.equal(err.status, 400);
        assert.equal(err.code, code);
        assert.equal(err.moreInfo, `https://www.twilio.com/docs/errors/${code}`);
        return true;
      });
    }
    await assert.rejects(client.messages(`SM${'0'.repeat(32)}`).fetch(), (err: twilio.RestException) => err.status === 404 && err.code === 20404);
  });

  it('refuses wrong credentials with 20003', async () => {
    const wrong = twilioClientFor(sim, { authToken: 'f'.repeat(32) });
    await assert.rejects(wrong.messages.create({ to: TO, from: FROM, body: 'x' }), (err: twilio.RestException) => {
      assert.equal(err.status, 401);
      assert.equal(err.code, 20003);
      return true;
    });
    const other = twilioClientFor(sim, { accountSid: `AC${'1'.repeat(32)}` });
    await assert.rejects(other.api.v2010.accounts(`AC${'1'.repeat(32)}`).fetch(), (err: twilio.RestException) => err.status === 401);
  });

  it('answers the account probe and the owned numbers', async () => {
    const account = await client.api.v2010.accounts(sim.credentials.twilio.accountSid).fetch();
    assert.equal(account.status, 'active');
    assert.equal(account.sid, sim.credentials.twilio.accountSid);
    const numbers = await client.incomingPhoneNumbers.list();
    assert.deepEqual(numbers.map((n) => n.phoneNumber), ['+15555550100', '+15555550101', '+15555550102']);
    assert.ok(numbers.every((n) => /^PN[0-9a-f]{32}$/.test(n.sid) && n.capabilities.sms));
  });

  it('creates, lists, fetches and updates calls', async () => {
    const call = await client.calls.create({
      to: TO,
      from: FROM,
      twiml: '<Response><Say>Hi</Say></Response>',
      statusCallback: `${receiver.url}/call-status`,
      statusCallbackEvent: ['initiated', 'answered', 'completed'],
    });
    assert.match(call.sid, /^CA[0-9a-f]{32}$/);
    assert.equal(call.status, 'queued');
    assert.equal(call.direction, 'outbound-api');
    const [stored] = sim.calls();
    assert.deepEqual(stored?.statusCallbackEvents, ['initiated', 'answered', 'completed']);
    assert.equal(stored?.twiml, '<Response><Say>Hi</Say></Response>');

    const redirected = await client.calls(call.sid).update({ twiml: '<Response><Hangup/></Response>' });
    assert.equal(redirected.status, 'queued');
    assert.equal(sim.calls()[0]?.twiml, '<Response><Hangup/></Response>');
    const ended = await client.calls(call.sid).update({ status: 'completed' });
    assert.equal(ended.status, 'completed');
    await assert.rejects(client.calls(call.sid).update({ url: 'https://example.com/twiml' }), (err: twilio.RestException) => err.code === 21220);
    assert.equal((await client.calls(call.sid).fetch()).status, 'completed');
    assert.deepEqual((await client.calls.list()).map((c) => c.sid), [call.sid]);
    await assert.rejects(client.calls.create({ to: TO, from: FROM } as never), (err: twilio.RestException) => err.code === 21205);
  });

  it('posts signed status callbacks: sent, then delivered with the price', async () => {
    const before = receiver.received.length;
    const message = await client.messages.create({ to: TO, from: FROM, body: 'track me', statusCallback: `${receiver.url}/status?agent=a1` });
    const callbacks = () => receiver.received.slice(before).filter((w) => formParams(w.body)['MessageSid'] === message.sid);
    const mine = await eventually(() => callbacks().length >= 2 && callbacks(), { intervalMs: 10, message: () => `two status callbacks (${callbacks().length} arrived)` });
    assert.deepEqual(mine.map((w) => formParams(w.body)['MessageStatus']), ['sent', 'delivered']);
    for (const w of mine) {
      assert.equal(w.path, '/status?agent=a1');
      assert.ok(twilio.validateRequest(sim.credentials.twilio.authToken, header(w.headers, 'x-twilio-signature'), w.url, formParams(w.body)), 'signature verifies');
      assert.ok(!twilio.validateRequest('0'.repeat(32), header(w.headers, 'x-twilio-signature'), w.url, formParams(w.body)), 'another token does not');
    }
    const delivered = formParams(mine[1]!.body);
    assert.equal(delivered['Price'], '-0.00790');
    assert.equal(delivered['PriceUnit'], 'USD');
    assert.equal(delivered['SmsSid'], message.sid);
    assert.equal(delivered['SmsStatus'], 'delivered');
    assert.equal(delivered['AccountSid'], sim.credentials.twilio.accountSid);
    assert.equal(delivered['From'], FROM);
    assert.equal(delivered['To'], TO);
    assert.equal(delivered['ApiVersion'], '2010-04-01');
    assert.equal('Price' in formParams(mine[0]!.body), false);
    const fetched = await client.messages(message.sid).fetch();
    assert.equal(fetched.status, 'delivered');
    assert.equal(fetched.price, '-0.00790');
  });
});

describe('Twilio status callbacks switched off', () => {
  it('posts nothing and leaves the message queued', async () => {
    const sim = await startSimulator({ statusCallbacks: false, statusCallbackDelayMs: 5 });
    const receiver = await startReceiver();
    try {
      const message = await twilioClientFor(sim).messages.create({ to: TO, from: FROM, body: 'quiet', statusCallback: `${receiver.url}/s` });
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(receiver.received.length, 0);
      assert.equal((await twilioClientFor(sim).messages(message.sid).fetch()).status, 'queued');
    } finally {
      await sim.close();
      await receiver.close();
    }
  });

  it('survives a callback target that is down', async () => {
    const warnings: object[] = [];
    const sim = await startSimulator({ statusCallbackDelayMs: 5, logger: { info() {}, warn: (o) => warnings.push(o) } });
    try {
      const client = twilioClientFor(sim);
      await client.messages.create({ to: TO, from: FROM, body: 'x', statusCallback: 'http://127.0.0.1:1/unreachable' });
      await eventually(() => warnings.length >= 2, { intervalMs: 10, message: () => `two warnings (${warnings.length} logged)` });
      assert.equal(warnings.length, 2, 'both failures logged');
      const account = await client.api.v2010.accounts(sim.credentials.twilio.accountSid).fetch();
      assert.equal(account.status, 'active', 'still serving');
    } finally {
      await sim.close();
    }
  });
});
