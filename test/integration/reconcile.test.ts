import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '@switchboard/runtime/testing';

const CUSTOMER = '+14155550199';
const PERSON = 'ada@example.com';
const LINE_USER = 'U' + 'a'.repeat(32);
const NO_ANSWER = '+14155550901';
const UNASKABLE = '+14155550902';
/** Short, so the file takes seconds: first ask 300 ms after the send, `unknown` at 3 s. */
const BOUND_MS = 3000;

interface Entry {
  type: string;
  messageId: string | null;
  status: string | null;
  payload: Record<string, unknown>;
}

describe('a final status for every send, when the provider never calls back', () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let receiver: CallbackReceiver;
  let secret: string | undefined;
  const sent: Record<string, { messageId: string; externalId: string; at: number }> = {};
  const placed: Record<string, { callSid: string; at: number }> = {};

  before(async () => {
    t = await startTestGateway({ RECONCILE_AFTER_MS: 300, RECONCILE_BOUND_MS: BOUND_MS, RECONCILE_SWEEP_MS: 100 });
    agent = await provisionAgent(t, 'reconcile-a', ['sms', 'email', 'line', 'voice']);
    receiver = await startCallbackReceiver(() => secret);
    const set = await t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl: receiver.url } });
    assert.equal(set.status, 200);
    secret = ((await set.json()) as { signingSecret: string }).signingSecret;
    const send = async (name: string, json: Record<string, unknown>) => {
      const res = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json });
      assert.equal(res.status, 200, await res.clone().text());
      const { messageId, externalId } = (await res.json()) as { messageId: string; externalId: string };
      sent[name] = { messageId, externalId, at: Date.now() };
    };
    // Each provider stops calling back; what its messages come to only its API tells.
    const sms = (body: string) => ({ channel: 'sms', to: CUSTOMER, body });
    const email = (subject: string) => ({ channel: 'email', to: PERSON, subject, body: 'Hello' });
    const silent: [string, 'twilio' | 'resend', 'delivered' | 'undelivered' | 'sent', Record<string, unknown>][] = [
      ['twilio delivered', 'twilio', 'delivered', sms('one')],
      ['twilio undelivered', 'twilio', 'undelivered', sms('two')],
      ['twilio stuck', 'twilio', 'sent', sms('three')],
      ['resend delivered', 'resend', 'delivered', email('one')],
      ['resend bounced', 'resend', 'undelivered', email('two')],
      ['resend stuck', 'resend', 'sent', email('three')],
    ];
    for (const [name, provider, outcome, json] of silent) {
      t.sim.silence(provider, outcome);
      await send(name, json);
    }
    await send('line', { channel: 'line', to: LINE_USER, body: 'hello' });
    // Calls: Twilio (still silenced) posts no status callbacks; the phone does not answer.
    const call = async (name: string, to: string) => {
      t.sim.phone.onOutbound(to, { answer: 'no-answer', ringMs: 200 });
      const res = await t.call('POST', '/api/v1/make-call', { token: agent.securityToken, json: { to } });
      assert.equal(res.status, 200, await res.clone().text());
      placed[name] = { callSid: ((await res.json()) as { callSid: string }).callSid, at: Date.now() };
    };
    await call('no answer', NO_ANSWER);
    await call('unaskable', UNASKABLE);
    // Twilio cannot be asked about this one: every fetch of it answers 500.
    t.sim.faults.add({ provider: 'twilio', method: 'GET', pathIncludes: `/Calls/${placed['unaskable']!.callSid}`, status: 500 });
  });
  after(async () => {
    t.sim.faults.clear();
    t.sim.silence('twilio', undefined);
    t.sim.silence('resend', undefined);
    await receiver.close();
    await t.close();
  });

  const entriesOf = async (messageId: string): Promise<Entry[]> => {
    const res = await t.call('GET', '/api/v1/inbox?after=0&limit=500', { token: agent.securityToken });
    assert.equal(res.status, 200);
    return ((await res.json()) as { entries: Entry[] }).entries.filter((e) => e.messageId === messageId && e.type === 'message.status');
  };
  /** The message's final status, in the inbox and at the callback URL; fails past the bound and a generous margin. */
  const finalOf = async (name: string, final: string) => {
    const { messageId, at } = sent[name]!;
    let seen = '';
    return eventually(
      async () => {
        const entries = await entriesOf(messageId);
        const posted = receiver.events.filter((e) => e.event.type === 'message.status' && e.event.data.messageId === messageId);
        const last = entries.at(-1);
        seen = `inbox: ${entries.map((e) => e.status).join(' → ')}; callbacks: ${posted.map((e) => e.event.data.status).join(', ')}`;
        if (last?.status !== final || !posted.some((e) => e.event.data.status === final)) return undefined;
        return { entries, entry: last, posted: posted.find((e) => e.event.data.status === final)!.event, at: Date.now() - at };
      },
      { timeoutMs: at + BOUND_MS + 15_000 - Date.now(), intervalMs: 100, message: () => `${name}: ${final}; ${seen}` },
    );
  };

  it('Twilio: a message delivered without a callback ends delivered, asked through Messages fetch', async () => {
    const { entries, entry, posted } = await finalOf('twilio delivered', 'delivered');
    assert.equal(entry.payload.cost, 0.0079, 'the price Twilio reports on the fetched message');
    assert.ok(!entries.some((e) => e.status === 'unknown'));
    assert.equal(posted.data.cost, 0.0079);
  });

  it('Twilio: an undelivered message ends undelivered with its error code', async () => {
    const { entry, posted } = await finalOf('twilio undelivered', 'undelivered');
    assert.equal(entry.payload.error, '30003');
    assert.equal(posted.data.errorCode, '30003');
  });

  it('Twilio: a message the carrier never reports on ends unknown at the bound, with the reason', async () => {
    const { entry, posted, at } = await finalOf('twilio stuck', 'unknown');
    assert.ok(at >= BOUND_MS - 200, `not before the bound (${at} ms)`);
    assert.match(String(entry.payload.reason), /twilio still reported sent at the bound of 3 s/);
    assert.equal(posted.data.reason, entry.payload.reason);
    // Asked at 0.3 s, then as its age doubles (0.6, 1.2, 2.4 s) and at the bound: five asks at most, however many processes sweep.
    const asks = t.sim.requests('twilio').filter((r) => r.method === 'GET' && r.path.endsWith(`/Messages/${sent['twilio stuck']!.externalId}.json`)).length;
    assert.ok(asks >= 2 && asks <= 5, `asked ${asks} times`);
  });

  it("Resend: last_event delivered ends delivered; a bounce ends undelivered", async () => {
    await finalOf('resend delivered', 'delivered');
    const { entry } = await finalOf('resend bounced', 'undelivered');
    assert.equal(entry.payload.error, 'bounced');
  });

  it('Resend: an email whose last_event stays sent ends unknown at the bound, with the reason', async () => {
    const { entry } = await finalOf('resend stuck', 'unknown');
    assert.match(String(entry.payload.reason), /resend still reported sent/);
  });

  it('LINE, whose push API reports no delivery: sent, then unknown at the bound, with the reason', async () => {
    const { entries, entry, at } = await finalOf('line', 'unknown');
    assert.deepEqual(entries.map((e) => e.status).slice(-2), ['sent', 'unknown']);
    assert.ok(at >= BOUND_MS - 200, `not before the bound (${at} ms)`);
    assert.match(String(entry.payload.reason), /line sent no final status, and its API reports none to ask for; the last status was sent/);
  });

  /** The call's final status, in the inbox and at the callback URL, as for a message. */
  const callFinalOf = async (name: string, final: string) => {
    const { callSid, at } = placed[name]!;
    let seen = '';
    return eventually(
      async () => {
        const res = await t.call('GET', '/api/v1/inbox?after=0&limit=500', { token: agent.securityToken });
        const entries = ((await res.json()) as { entries: Entry[] }).entries.filter((e) => e.type === 'call.status' && e.payload.callSid === callSid);
        const posted = receiver.events.filter((e) => e.event.type === 'call.status' && e.event.data.callSid === callSid);
        const last = entries.at(-1);
        seen = `inbox: ${entries.map((e) => e.status).join(' → ')}; callbacks: ${posted.map((e) => e.event.data.status).join(', ')}`;
        if (last?.status !== final || !posted.some((e) => e.event.data.status === final)) return undefined;
        return { entry: last, posted: posted.find((e) => e.event.data.status === final)!.event, at: Date.now() - at };
      },
      { timeoutMs: at + BOUND_MS + 15_000 - Date.now(), intervalMs: 100, message: () => `${name}: ${final}; ${seen}` },
    );
  };

  it('Twilio: a placed call nobody answered ends no-answer, asked through Calls fetch', async () => {
    await callFinalOf('no answer', 'no-answer');
    const stored = await t.gateway.runtime.inspect.stored.call(placed['no answer']!.callSid);
    assert.equal(stored?.status, 'no-answer');
  });

  it('Twilio: a call its provider cannot be asked about ends unknown at the bound, with the reason', async () => {
    const { entry, posted, at } = await callFinalOf('unaskable', 'unknown');
    assert.ok(at >= BOUND_MS - 200, `not before the bound (${at} ms)`);
    assert.match(String(entry.payload.reason), /^twilio could not be asked for the call status/);
    assert.equal(posted.data.reason, entry.payload.reason);
    assert.equal((await t.gateway.runtime.inspect.stored.call(placed['unaskable']!.callSid))?.status, 'unknown');
  });

  it('a send of an agent deprovisioned since is erased with it: nothing is left to ask about or tell', async () => {
    const gone = await provisionAgent(t, 'reconcile-gone', ['sms']);
    t.sim.silence('twilio', 'sent');
    const res = await t.call('POST', '/api/v1/send-message', { token: gone.securityToken, json: { channel: 'sms', to: CUSTOMER, body: 'last words' } });
    assert.equal(res.status, 200);
    const { messageId, externalId } = (await res.json()) as { messageId: string; externalId: string };
    assert.equal((await t.call('POST', '/api/v1/deprovision', { token: gone.securityToken, json: {} })).status, 200);
    // Deprovisioning erases the agent's messages (issue 32): the send's row is gone at once.
    assert.equal(await t.gateway.runtime.inspect.stored.message(messageId), undefined);
    const asked = () => t.sim.requests('twilio').filter((r) => r.method === 'GET' && r.path.includes(externalId)).length;
    const before = asked();
    // Past the first ask (300 ms) and the bound: the reconciler neither asks about it nor writes it back.
    await new Promise((r) => setTimeout(r, BOUND_MS + 500));
    assert.equal(asked(), before, 'no provider fetch for an erased send');
    assert.equal(await t.gateway.runtime.inspect.stored.message(messageId), undefined);
  });

  it('a final status is final: later sweeps ask nothing more about it', async () => {
    const fetches = () => t.sim.requests('twilio').filter((r) => r.method === 'GET' && /\/Messages\/SM[0-9a-f]{32}\.json$/i.test(r.path)).length;
    const before = fetches();
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(fetches(), before, 'no Twilio message was asked about again');
  });
});
