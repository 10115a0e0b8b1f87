import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../src/index.js';
import { startReceiver, type WebhookReceiver } from './helpers.js';

const NUMBER = '+15555550100';
const CUSTOMER = '+14155550123';
const DAY_MS = 24 * 60 * 60 * 1000;

interface Notification {
  object: string;
  entry: { id: string; changes: { field: string; value: { metadata: { display_phone_number: string; phone_number_id: string }; statuses?: { id: string; status: string; errors?: { code: number }[] }[]; messages?: { from: string; text: { body: string } }[] } }[] }[];
}

describe('simulated WhatsApp Cloud API', () => {
  let sim: Simulator;
  let gateway: WebhookReceiver;
  const graph = (path: string, init: RequestInit = {}, token = sim.credentials.whatsappCloud.accessToken) =>
    fetch(`${sim.baseUrls.whatsappCloud}/v23.0${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } });
  const sendText = (to: string, body: string) =>
    graph(`/${sim.credentials.whatsappCloud.phoneNumberId}/messages`, { method: 'POST', body: JSON.stringify({ messaging_product: 'whatsapp', to: to.slice(1), type: 'text', text: { body } }) });
  const signedByMeta = (body: string, header: string | string[] | undefined) =>
    header === `sha256=${createHmac('sha256', sim.credentials.whatsappCloud.appSecret).update(body).digest('hex')}`;

  before(async () => {
    sim = await startSimulator({ phoneNumbers: [NUMBER], statusCallbackDelayMs: 5 });
    // Answers Meta's handshake as a gateway does: the challenge, when the token is the app's.
    gateway = await startReceiver((w) => {
      const query = new URL(w.url).searchParams;
      if (w.method !== 'GET') return { status: 200 };
      return query.get('hub.verify_token') === sim.credentials.whatsappCloud.verifyToken ? { status: 200, body: query.get('hub.challenge') ?? '' } : { status: 403 };
    });
    sim.gatewayUrl = gateway.url;
  });
  after(async () => {
    await sim.close();
    await gateway.close();
  });

  it('refuses a wrong token with code 190, an unknown object with code 100', async () => {
    const refused = await graph(`/${sim.credentials.whatsappCloud.phoneNumberId}`, {}, 'EAAwrong');
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: { code: number; type: string } }).error.code, 190);
    const unknown = await graph('/999/messages', { method: 'POST', body: '{}' });
    assert.deepEqual([unknown.status, ((await unknown.json()) as { error: { code: number } }).error.code], [400, 100]);
  });

  it('checks a callback override with the GET handshake first: a wrong verify token fails with 2200', async () => {
    const override = (verify_token: string) =>
      graph(`/${sim.credentials.whatsappCloud.phoneNumberId}`, { method: 'POST', body: JSON.stringify({ webhook_configuration: { override_callback_uri: `${gateway.url}/webhooks/wa/whatsapp`, verify_token } }) });
    const wrong = await override('not-it');
    assert.deepEqual([wrong.status, ((await wrong.json()) as { error: { code: number } }).error.code], [400, 2200]);
    const ok = await override(sim.credentials.whatsappCloud.verifyToken);
    assert.deepEqual(await ok.json(), { success: true });
    const checks = gateway.received.filter((w) => w.method === 'GET');
    assert.equal(checks.length, 2);
    assert.equal(new URL(checks[1]!.url).searchParams.get('hub.mode'), 'subscribe');
  });

  it('a free-form message before the user wrote is accepted and then fails with 131047; after an inbound message it is delivered; a day later it fails again', async () => {
    const before = gateway.received.length;
    const blind = (await (await sendText(CUSTOMER, 'hello?')).json()) as { messages: { id: string }[] };
    assert.match(blind.messages[0]!.id, /^wamid\./);
    const [failed] = await gateway.waitFor(before + 1).then((all) => all.slice(before));
    assert.ok(signedByMeta(failed!.body, failed!.headers['x-hub-signature-256']), 'signed with the app secret');
    const failure = (JSON.parse(failed!.body) as Notification).entry[0]!.changes[0]!.value.statuses![0]!;
    assert.deepEqual([failure.id, failure.status, failure.errors?.[0]?.code], [blind.messages[0]!.id, 'failed', 131047]);

    // Over the control API, as curl would: the user writes, which opens the window.
    const inbound = await fetch(`${sim.url}/_sim/inbound/whatsapp-cloud`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agentId: 'wa', from: CUSTOMER, to: NUMBER, body: 'hi' }) });
    assert.equal(inbound.status, 200, await inbound.clone().text());
    const posted = gateway.received.at(-1)!;
    assert.equal(posted.path, '/webhooks/wa/whatsapp');
    const value = (JSON.parse(posted.body) as Notification).entry[0]!.changes[0]!.value;
    assert.deepEqual([value.metadata.display_phone_number, value.messages?.[0]?.from, value.messages?.[0]?.text.body], ['15555550100', '14155550123', 'hi']);

    const start = gateway.received.length;
    const reply = (await (await sendText(CUSTOMER, 'welcome')).json()) as { messages: { id: string }[] };
    const statuses = (await gateway.waitFor(start + 2)).slice(start).map((w) => (JSON.parse(w.body) as Notification).entry[0]!.changes[0]!.value.statuses![0]!);
    assert.deepEqual(statuses.map((s) => [s.id, s.status]), [[reply.messages[0]!.id, 'sent'], [reply.messages[0]!.id, 'delivered']]);
    assert.equal(sim.messages({ provider: 'whatsapp-cloud', to: CUSTOMER }).at(-1)?.body, 'welcome');

    sim.clock.advance(DAY_MS + 1000);
    const later = gateway.received.length;
    await sendText(CUSTOMER, 'still there?');
    const [closed] = (await gateway.waitFor(later + 1)).slice(later);
    assert.equal((JSON.parse(closed!.body) as Notification).entry[0]!.changes[0]!.value.statuses![0]!.errors?.[0]?.code, 131047);
  });

  it('renders a template from its body parameters, and refuses one it does not hold with 132001', async () => {
    const send = (template: unknown) =>
      graph(`/${sim.credentials.whatsappCloud.phoneNumberId}/messages`, { method: 'POST', body: JSON.stringify({ messaging_product: 'whatsapp', to: '14155550199', type: 'template', template }) });
    const ok = await send({ name: 'order_update', language: { code: 'en' }, components: [{ type: 'body', parameters: [{ type: 'text', text: '#9' }, { type: 'text', text: 'today' }] }] });
    assert.equal(ok.status, 200);
    assert.equal(sim.messages({ provider: 'whatsapp-cloud', to: '+14155550199' }).at(-1)?.body, 'Your order #9 is on its way and should arrive today.');
    const pending = await send({ name: 'spring_offer', language: { code: 'en' } });
    assert.deepEqual([pending.status, ((await pending.json()) as { error: { code: number } }).error.code], [400, 132001]);
  });
});
