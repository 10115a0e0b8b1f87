import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HTTPFetchError, messagingApi } from '@line/bot-sdk';
import { startSimulator, type Simulator } from '../src/index.js';
import { startReceiver, type WebhookReceiver } from './helpers.js';

const USER = `U${'ab'.repeat(16)}`;

describe('LINE Messaging API through @line/bot-sdk', () => {
  let sim: Simulator;
  let client: messagingApi.MessagingApiClient;
  let gateway: WebhookReceiver;

  before(async () => {
    sim = await startSimulator();
    client = new messagingApi.MessagingApiClient({ channelAccessToken: sim.credentials.line.channelAccessToken, baseURL: sim.baseUrls.line });
    gateway = await startReceiver(() => ({ status: 200, body: '{}', contentType: 'application/json' }));
    sim.gatewayUrl = gateway.url;
  });
  after(async () => {
    await sim.close();
    await gateway.close();
  });

  it('pushes messages and records them', async () => {
    const res = await client.pushMessageWithHttpInfo({ to: USER, messages: [{ type: 'text', text: 'Hello' }, { type: 'text', text: 'again' }] });
    assert.equal(res.body.sentMessages.length, 2);
    assert.match(res.body.sentMessages[0]!.id, /^\d{18}$/);
    assert.ok(res.body.sentMessages[0]!.quoteToken);
    assert.match(res.httpResponse.headers.get('x-line-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      sim.messages({ channel: 'line', to: USER }).map((m) => [m.body, m.from]),
      [['Hello', sim.credentials.line.botUserId], ['again', sim.credentials.line.botUserId]],
    );
  });

  it('answers a retried X-Line-Retry-Key with 409 and the accepted messages', async () => {
    const key = '123e4567-e89b-12d3-a456-426614174000';
    const first = await client.pushMessage({ to: USER, messages: [{ type: 'text', text: 'once' }] }, key);
    await assert.rejects(client.pushMessage({ to: USER, messages: [{ type: 'text', text: 'once' }] }, key), (err: HTTPFetchError) => {
      assert.equal(err.status, 409);
      assert.deepEqual(JSON.parse(err.body).sentMessages, first.sentMessages);
      assert.ok(err.headers.get('x-line-accepted-request-id'));
      return true;
    });
    assert.equal(sim.messages({ channel: 'line' }).filter((m) => m.body === 'once').length, 1);
  });

  it('validates like LINE, with details', async () => {
    await assert.rejects(client.pushMessage({ to: USER, messages: [{ type: 'text', text: '' }] }), (err: HTTPFetchError) => {
      assert.equal(err.status, 400);
      assert.deepEqual(JSON.parse(err.body), { message: 'The request body has 1 error(s)', details: [{ message: 'May not be empty', property: 'messages[0].text' }] });
      return true;
    });
    await assert.rejects(client.pushMessage({ to: 'nobody', messages: [{ type: 'text', text: 'x' }] }), (err: HTTPFetchError) => err.status === 400);
  });

  it('accepts a reply token it issued, once', async () => {
    const inbound = await sim.inbound.line({ agentId: 'agent-1', userId: USER, text: 'hi bot' });
    assert.equal(inbound.status, 200);
    const reply = await client.replyMessage({ replyToken: inbound.replyToken!, messages: [{ type: 'text', text: 'hi human' }] });
    assert.equal(reply.sentMessages.length, 1);
    assert.equal(sim.messages({ channel: 'line' }).at(-1)?.to, USER);
    await assert.rejects(client.replyMessage({ replyToken: inbound.replyToken!, messages: [{ type: 'text', text: 'twice' }] }), (err: HTTPFetchError) => {
      assert.equal(err.status, 400);
      assert.equal(JSON.parse(err.body).message, 'Invalid reply token');
      return true;
    });
  });

  it('returns the bot info for the configured bot user', async () => {
    const info = await client.getBotInfo();
    assert.equal(info.userId, sim.credentials.line.botUserId);
    assert.ok(info.basicId.startsWith('@'));
    assert.ok(['chat', 'bot'].includes(info.chatMode));
    assert.ok(['auto', 'manual'].includes(info.markAsReadMode));
  });

  it('refuses a wrong channel access token', async () => {
    const wrong = new messagingApi.MessagingApiClient({ channelAccessToken: 'nope', baseURL: sim.baseUrls.line });
    await assert.rejects(wrong.getBotInfo(), (err: HTTPFetchError) => err.status === 401 && JSON.parse(err.body).message.startsWith('Authentication failed'));
  });
});
