import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../src/index.js';
import { startReceiver, type WebhookReceiver } from './helpers.js';

const NUMBER = '+15555550100';
const CUSTOMER = '+14155550123';

/** Checks Telnyx's signature independently of the SDK: Ed25519 over `timestamp|body` under the raw public key. */
function signedByTelnyx(publicKey: string, timestamp: string, body: string, signature: string): boolean {
  const spkiPrefix = Buffer.from('302a300506032b6570032100', 'hex');
  const key = createPublicKey({ key: Buffer.concat([spkiPrefix, Buffer.from(publicKey, 'base64')]), format: 'der', type: 'spki' });
  return verify(null, Buffer.from(`${timestamp}|${body}`), key, Buffer.from(signature, 'base64'));
}

describe('simulated Telnyx messaging API', () => {
  let sim: Simulator;
  let gateway: WebhookReceiver;
  const api = (path: string, init: RequestInit = {}, apiKey = sim.credentials.telnyx.apiKey) =>
    fetch(`${sim.baseUrls.telnyx}${path}`, { ...init, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...init.headers } });

  before(async () => {
    sim = await startSimulator({ statusCallbackDelayMs: 5 });
    gateway = await startReceiver(() => ({ status: 200 }));
    sim.gatewayUrl = gateway.url;
  });
  after(async () => {
    await sim.close();
    await gateway.close();
  });

  it('refuses a wrong API key with Telnyx 10009, and an unknown message with 10005', async () => {
    const refused = await api('/v2/balance', {}, 'KEY_wrong');
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { errors: { code: string }[] }).errors[0]?.code, '10009');
    const missing = await api('/v2/messages/00000000-0000-4000-8000-000000000000');
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { errors: { code: string }[] }).errors[0]?.code, '10005');
  });

  it('queues a message, records it, and posts message.sent then message.finalized signed with the account key', async () => {
    const webhook_url = `${gateway.url}/status`;
    const res = await api('/v2/messages', { method: 'POST', body: JSON.stringify({ from: NUMBER, to: CUSTOMER, text: 'hi', webhook_url }) });
    assert.equal(res.status, 200);
    const { data } = (await res.json()) as { data: { id: string; to: { status: string }[]; type: string; parts: number } };
    assert.deepEqual([data.to[0]?.status, data.type, data.parts], ['queued', 'SMS', 1]);
    assert.deepEqual(sim.messages({ provider: 'telnyx' }).map((m) => [m.id, m.to, m.body]), [[data.id, CUSTOMER, 'hi']]);
    const hooks = await gateway.waitFor(2);
    const events = hooks.map((h) => JSON.parse(h.body) as { data: { event_type: string; payload: { id: string; to: { status: string }[]; cost: unknown } } });
    assert.deepEqual(events.map((e) => [e.data.event_type, e.data.payload.id, e.data.payload.to[0]?.status]), [
      ['message.sent', data.id, 'sent'],
      ['message.finalized', data.id, 'delivered'],
    ]);
    assert.deepEqual(events[1]?.data.payload.cost, { amount: '0.0040', currency: 'USD' });
    for (const h of hooks) {
      const timestamp = String(h.headers['telnyx-timestamp']);
      assert.ok(signedByTelnyx(sim.credentials.telnyx.publicKey, timestamp, h.body, String(h.headers['telnyx-signature-ed25519'])));
      assert.ok(!signedByTelnyx(sim.credentials.telnyx.publicKey, timestamp, h.body.replace('hi', 'ho'), String(h.headers['telnyx-signature-ed25519'])));
    }
    const fetched = (await (await api(`/v2/messages/${data.id}`)).json()) as { data: { to: { status: string }[] } };
    assert.equal(fetched.data.to[0]?.status, 'delivered');
  });

  it("refuses a sender the account does not own with 40305, and a bad 'to' with 40310", async () => {
    const from = await api('/v2/messages', { method: 'POST', body: JSON.stringify({ from: '+15550000000', to: CUSTOMER, text: 'x' }) });
    assert.equal(from.status, 400);
    assert.equal(((await from.json()) as { errors: { code: string }[] }).errors[0]?.code, '40305');
    const to = await api('/v2/messages', { method: 'POST', body: JSON.stringify({ from: NUMBER, to: 'nobody', text: 'x' }) });
    assert.equal(((await to.json()) as { errors: { code: string }[] }).errors[0]?.code, '40310');
  });

  it('injects an inbound SMS through the control API as a signed message.received event', async () => {
    const before = gateway.received.length;
    const res = await fetch(`${sim.url}/_sim/inbound/telnyx-sms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agentId: 'agent-1', from: CUSTOMER, to: NUMBER, body: 'hello' }) });
    assert.equal(res.status, 200);
    const [hook] = (await gateway.waitFor(before + 1)).slice(before);
    assert.equal(hook?.path, '/webhooks/agent-1/sms');
    const event = JSON.parse(hook!.body) as { data: { event_type: string; payload: { text: string; from: { phone_number: string } } } };
    assert.deepEqual([event.data.event_type, event.data.payload.text, event.data.payload.from.phone_number], ['message.received', 'hello', CUSTOMER]);
    assert.ok(signedByTelnyx(sim.credentials.telnyx.publicKey, String(hook!.headers['telnyx-timestamp']), hook!.body, String(hook!.headers['telnyx-signature-ed25519'])));
  });

  it('can be silenced through the control API: the message moves on, no event is posted', async () => {
    const silence = (outcome: string | null) => fetch(`${sim.url}/_sim/silence`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ provider: 'telnyx', outcome }) });
    assert.equal((await silence('delivered')).status, 200);
    const count = gateway.received.length;
    const res = await api('/v2/messages', { method: 'POST', body: JSON.stringify({ from: NUMBER, to: CUSTOMER, text: 'quiet', webhook_url: `${gateway.url}/quiet` }) });
    const { data } = (await res.json()) as { data: { id: string } };
    let status = '';
    for (let i = 0; i < 500 && status !== 'delivered'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = ((await (await api(`/v2/messages/${data.id}`)).json()) as { data: { to: { status: string }[] } }).data.to[0]!.status;
    }
    assert.equal(status, 'delivered');
    assert.equal(gateway.received.length, count, 'no event was posted');
    assert.equal((await silence(null)).status, 200);
  });

  it('keeps a given signing key, and forgets Telnyx messages on reset', async () => {
    const again = await startSimulator({ credentials: { telnyx: sim.credentials.telnyx } });
    try {
      assert.deepEqual(again.credentials.telnyx, sim.credentials.telnyx);
    } finally {
      await again.close();
    }
    sim.reset();
    assert.deepEqual(sim.messages({ provider: 'telnyx' }), []);
  });
});

describe('simulated Telnyx Call Control', () => {
  let sim: Simulator;
  let gateway: WebhookReceiver;
  const api = (path: string, body: unknown = {}) =>
    fetch(`${sim.baseUrls.telnyx}${path}`, { method: 'POST', headers: { authorization: `Bearer ${sim.credentials.telnyx.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const code = async (res: Response) => ((await res.json()) as { errors: { code: string }[] }).errors[0]?.code;

  before(async () => {
    sim = await startSimulator({ phone: { answerOutbound: false } });
    gateway = await startReceiver(() => ({ status: 200 }));
    sim.gatewayUrl = gateway.url;
  });
  after(async () => {
    await sim.close();
    await gateway.close();
  });

  it('dials with Telnyx validation: connection_id, E.164 numbers, a ws(s) stream_url, PCMU for bidirectional RTP', async () => {
    const ok = { connection_id: 'app-1', to: CUSTOMER, from: NUMBER, stream_url: 'wss://sb.example.com/voice-ws?session=s&token=t', stream_bidirectional_mode: 'rtp', stream_bidirectional_codec: 'PCMU' };
    assert.equal(await code(await api('/v2/calls', { ...ok, connection_id: undefined })), '10015');
    assert.equal(await code(await api('/v2/calls', { ...ok, to: '555' })), '10015');
    assert.equal(await code(await api('/v2/calls', { ...ok, stream_url: 'https://sb.example.com' })), '10015');
    assert.equal(await code(await api('/v2/calls', { ...ok, stream_bidirectional_codec: 'G722' })), '10015');
    const dialled = await api('/v2/calls', ok);
    assert.equal(dialled.status, 200);
    const { data } = (await dialled.json()) as { data: { call_control_id: string; call_leg_id: string; is_alive: boolean } };
    assert.match(data.call_control_id, /^v3:/);
    assert.equal(data.is_alive, false);
    const status = await fetch(`${sim.baseUrls.telnyx}/v2/calls/${encodeURIComponent(data.call_control_id)}`, { headers: { authorization: `Bearer ${sim.credentials.telnyx.apiKey}` } });
    assert.equal(((await status.json()) as { data: { is_alive: boolean } }).data.is_alive, true);
  });

  it('refuses commands for an unknown call (10005), an ended one (90018), and answering a call it placed', async () => {
    assert.equal(await code(await api(`/v2/calls/${encodeURIComponent('v3:unknown')}/actions/hangup`)), '10005');
    const { data } = (await (await api('/v2/calls', { connection_id: 'app-1', to: CUSTOMER, from: NUMBER })).json()) as { data: { call_control_id: string } };
    const id = encodeURIComponent(data.call_control_id);
    assert.equal((await api(`/v2/calls/${id}/actions/answer`, { stream_url: 'wss://x.example/ws' })).status, 422);
    assert.equal(await code(await api(`/v2/calls/${id}/actions/speak`, { payload: 'hi' })), '10015', 'speak needs a voice');
    assert.equal((await api(`/v2/calls/${id}/actions/speak`, { payload: 'hi', voice: 'female' })).status, 200);
    assert.equal((await api(`/v2/calls/${id}/actions/hangup`)).status, 200);
    assert.equal(await code(await api(`/v2/calls/${id}/actions/hangup`)), '90018');
  });

  it('posts call events signed with Ed25519: call.initiated (incoming) for a call to the agent', async () => {
    const phoneCall = await sim.phone.call({ provider: 'telnyx', agentId: 'agent-1', from: CUSTOMER, to: NUMBER, script: { ringMs: 50 } });
    const [event] = await gateway.waitFor(1);
    assert.equal(event!.path, '/webhooks/agent-1/voice');
    const headers = event!.headers as Record<string, string>;
    assert.ok(signedByTelnyx(sim.credentials.telnyx.publicKey, headers['telnyx-timestamp']!, event!.body, headers['telnyx-signature-ed25519']!));
    const { data } = JSON.parse(event!.body) as { data: { event_type: string; payload: Record<string, unknown> } };
    assert.equal(data.event_type, 'call.initiated');
    assert.deepEqual([data.payload.call_control_id, data.payload.direction, data.payload.from, data.payload.to], [phoneCall.callSid, 'incoming', CUSTOMER, NUMBER]);
    // Nobody answers it: it gives up as unanswered after its ring time.
    assert.equal((await phoneCall.done).status, 'no-answer');
  });

  it('posts one call event through the control API', async () => {
    const seen = gateway.received.length;
    const res = await fetch(`${sim.url}/_sim/inbound/telnyx-call-event`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agentId: 'agent-2', eventType: 'call.hangup', callControlId: 'v3:abc', status: 'busy' }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const [event] = (await gateway.waitFor(seen + 1)).slice(seen);
    assert.equal(event!.path, '/webhooks/agent-2/call-status');
    const { data } = JSON.parse(event!.body) as { data: { event_type: string; payload: Record<string, unknown> } };
    assert.deepEqual([data.event_type, data.payload.call_control_id, data.payload.hangup_cause], ['call.hangup', 'v3:abc', 'user_busy']);
  });
});
