import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import { validateDriver, type Driver, type WebhookRequest } from '@switchboard/sdk';
import { describeDriverConformance, startWebhookReceiver, type WebhookReceiver } from '@switchboard/sdk/testing';
import driver, { describeMessage, retryKeyOf, type LineSettings } from '../src/index.js';

const USER = `U${'1'.repeat(32)}`;
const PATH = '/webhooks/agent-1/line';
const context = { logger: { debug() {}, info() {}, warn() {}, error() {} }, publicBaseUrl: 'http://127.0.0.1' };

let sim: Simulator;
let hooks: WebhookReceiver;

const settingsOf = (s: Simulator): LineSettings => ({
  channelAccessToken: s.credentials.line.channelAccessToken,
  channelSecret: s.credentials.line.channelSecret,
  baseUrl: s.baseUrls.line,
});

/** A body signed as LINE signs it, for payloads the simulator never sends. */
function signedJson(channelSecret: string, url: string, body: string): WebhookRequest {
  const signature = createHmac('sha256', channelSecret).update(body).digest('base64');
  return { channel: 'line', method: 'POST', url, headers: { 'content-type': 'application/json', 'x-line-signature': signature }, rawBody: Buffer.from(body) };
}

const inboundLine = (extra: { tamper?: boolean; omitSignature?: boolean } = {}) =>
  hooks.capture('line', PATH, (url) => sim.inbound.line({ url, userId: USER, text: 'hello bot', ...extra }));

describeDriverConformance({
  module: driver,
  before: async () => {
    sim = await startSimulator({ statusCallbacks: false });
    hooks = await startWebhookReceiver();
  },
  after: async () => {
    await hooks.close();
    await sim.close();
  },
  settings: () => settingsOf(sim),
  wrongCredentials: () => ({ ...settingsOf(sim), channelAccessToken: 'wrong-token' }),
  invalidSettings: [
    {},
    { channelAccessToken: 'token' },
    { channelAccessToken: 'token', channelSecret: 'too-short' },
    { channelAccessToken: '', channelSecret: 'a'.repeat(32) },
    { channelAccessToken: 'token', channelSecret: 'a'.repeat(32), baseUrl: 42 },
  ],
  sends: [{ channel: 'line', from: '', to: USER, body: 'Hello from the conformance suite' }],
  injectFault: (status) => sim.faults.add({ provider: 'line', status, times: 1 }),
  clearFaults: () => sim.faults.clear(),
  webhooks: {
    signed: () => inboundLine(),
    tampered: () => inboundLine({ tamper: true }),
    unsigned: () => inboundLine({ omitSignature: true }),
    malformed: () => signedJson(sim.credentials.line.channelSecret, `${hooks.url}${PATH}`, JSON.stringify({ destination: 'Ubot', events: 'none' })),
    expectEvents: (events) => assert.equal(events[0]?.type === 'message' && events[0].body, 'hello bot'),
  },
  skip: {
    'an expired signature is rejected': 'LINE signs no timestamp, so its signatures cannot expire',
    'estimateCost returns a non-negative number or null': 'LINE push messages are billed by monthly plan, not per message',
  },
});

describe('line driver against the simulator', () => {
  let s: Simulator;
  let receiver: WebhookReceiver;
  let d: Driver;

  before(async () => {
    s = await startSimulator({ statusCallbacks: false });
    receiver = await startWebhookReceiver();
    d = await driver.create(settingsOf(s), context);
  });
  after(async () => {
    await d.close?.();
    await receiver.close();
    await s.close();
  });

  it('pushes a text message: the simulator records to and body, externalId is the sent message id', async () => {
    const result = await d.send!({ channel: 'line', from: '', to: USER, body: 'Your order shipped' });
    const sent = s.messages({ provider: 'line', to: USER }).find((m) => m.id === result.externalId);
    assert.ok(sent, 'the simulator recorded the message under the returned id');
    assert.equal(sent.body, 'Your order shipped');
    assert.equal(sent.from, s.credentials.line.botUserId);
    assert.deepEqual({ status: result.status, cost: result.cost, segments: result.segments }, { status: 'sent', cost: null, segments: 1 });
  });

  it('sends the idempotency key as a retry key, and a retried push resolves to the first message', async () => {
    const message = { channel: 'line' as const, from: '', to: USER, body: 'exactly once', idempotencyKey: `idem-${randomBytes(4).toString('hex')}` };
    const first = await d.send!(message);
    const again = await d.send!(message);
    assert.equal(again.externalId, first.externalId);
    assert.equal(s.messages({ provider: 'line' }).filter((m) => m.body === 'exactly once').length, 1);
    const push = s.requests('line').find((r) => r.path.endsWith('/v2/bot/message/push') && r.headers['x-line-retry-key'] !== undefined);
    assert.equal(push?.headers['x-line-retry-key'], retryKeyOf(message.idempotencyKey));
  });

  it('parses a message event: webhookEventId as externalId, the user as from, the bot as to', async () => {
    const request = await receiver.capture('line', PATH, (url) => s.inbound.line({ url, userId: USER, text: 'hi', webhookEventId: '01HZX3K4Q4W1S6Y2J5D6E7F8G9' }));
    await d.webhooks!.verify(request);
    const [event] = await d.webhooks!.parse(request);
    assert.ok(event?.type === 'message');
    assert.deepEqual(
      { channel: event.channel, externalId: event.externalId, from: event.from, to: event.to, body: event.body },
      { channel: 'line', externalId: '01HZX3K4Q4W1S6Y2J5D6E7F8G9', from: USER, to: s.credentials.line.botUserId, body: 'hi' },
    );
  });

  it('reads X-Chatapp-Signature too', async () => {
    const request = await receiver.capture('line', PATH, (url) => s.inbound.line({ url, userId: USER, text: 'alias' }));
    const { 'x-line-signature': signature, ...rest } = request.headers;
    await d.webhooks!.verify({ ...request, headers: { ...rest, 'x-chatapp-signature': signature! } });
  });

  it('ignores non-message events and describes non-text messages', async () => {
    const body = JSON.stringify({
      destination: s.credentials.line.botUserId,
      events: [
        { type: 'follow', webhookEventId: 'E1', timestamp: 1, source: { type: 'user', userId: USER } },
        { type: 'message', webhookEventId: 'E2', timestamp: 1_700_000_000_000, source: { type: 'user', userId: USER }, message: { type: 'image', id: '1' } },
      ],
    });
    const request = signedJson(s.credentials.line.channelSecret, `${receiver.url}${PATH}`, body);
    await d.webhooks!.verify(request);
    const events = await d.webhooks!.parse(request);
    assert.equal(events.length, 1);
    assert.ok(events[0]?.type === 'message');
    assert.equal(events[0].body, '[image]');
    assert.equal(events[0].receivedAt, new Date(1_700_000_000_000).toISOString());
    assert.equal(describeMessage({ type: 'sticker', keywords: ['happy', 'cat'] }), '[sticker: happy, cat]');
    assert.equal(describeMessage({ type: 'file', fileName: 'a.pdf' }), '[file: a.pdf]');
  });

  it('acknowledges with {}', () => {
    assert.deepEqual(d.webhooks!.acknowledge('line'), { contentType: 'application/json', body: '{}' });
  });
});

describe('line driver with several bots (channels)', () => {
  const BOT_B = `U${'b'.repeat(32)}`;
  let s: Simulator;
  let receiver: WebhookReceiver;
  let d: Driver;

  before(async () => {
    s = await startSimulator({ statusCallbacks: false, lineBotUserIds: [BOT_B] });
    receiver = await startWebhookReceiver();
    d = await driver.create({ ...settingsOf(s), bots: s.credentials.lineBots.slice(1) }, context);
  });
  after(async () => {
    await d.close?.();
    await receiver.close();
    await s.close();
  });

  it('pushes from the bot named by `from` with its own token; anything else goes out from the first channel', async () => {
    assert.deepEqual(s.credentials.lineBots.map((b) => b.botUserId), [s.credentials.line.botUserId, BOT_B]);
    const fromB = await d.send!({ channel: 'line', from: BOT_B, to: USER, body: 'from bot b' });
    const fromFirst = await d.send!({ channel: 'line', from: '', to: USER, body: 'from the first bot' });
    const sent = (id: string) => s.messages({ provider: 'line', to: USER }).find((m) => m.id === id)?.from;
    assert.equal(sent(fromB.externalId), BOT_B);
    assert.equal(sent(fromFirst.externalId), s.credentials.line.botUserId);
  });

  it("checks a webhook with the secret of the bot it is addressed to, and refuses another bot's signature", async () => {
    const toB = await receiver.capture('line', PATH, (url) => s.inbound.line({ url, userId: USER, text: 'to b', destination: BOT_B }));
    await d.webhooks!.verify(toB);
    const [event] = await d.webhooks!.parse(toB);
    assert.equal(event?.type === 'message' && event.to, BOT_B);
    const forged = signedJson(s.credentials.line.channelSecret, `${receiver.url}${PATH}`, JSON.stringify({ destination: BOT_B, events: [] }));
    await assert.rejects(async () => d.webhooks!.verify(forged), { code: 'SIGNATURE_INVALID' });
  });

  it('refuses a bot whose user id is not a LINE user id', () => {
    assert.throws(() => validateDriver(driver, { ...settingsOf(s), bots: [{ botUserId: '../bot', channelAccessToken: 't', channelSecret: 'a'.repeat(32) }] }), { code: 'DRIVER_SETTINGS_INVALID' });
  });
});
