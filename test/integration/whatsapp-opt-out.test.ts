import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const PERSON = '+13125550191';

describe('WhatsApp opt-out: STOP on WhatsApp puts the sender on the agent\'s do-not-contact list, START takes them off', () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let other: Awaited<ReturnType<typeof provisionAgent>>;
  before(async () => {
    t = await startTestGateway();
    agent = await provisionAgent(t, 'wa-stop-bot', ['whatsapp', 'voice']);
    other = await provisionAgent(t, 'wa-other-bot', ['whatsapp']);
  });
  after(() => t.close());
  const body = async (res: Response) => (await res.json()) as any;
  const writes = async (text: string, to = agent) => {
    assert.equal((await t.sim.inbound.whatsapp({ agentId: to.agentId, from: PERSON, to: to.channels.whatsapp!.address, body: text })).status, 200);
  };
  const whatsapp = (text: string, token = agent.securityToken) => t.call('POST', '/api/v1/send-message', { token, json: { channel: 'whatsapp', to: PERSON, body: text } });

  it('refuses the agent\'s next WhatsApp message and call with RECIPIENT_OPTED_OUT, nothing reaching the provider; another agent is not kept from them', async () => {
    await writes('Hi there');
    await writes('Hi there', other);
    assert.equal((await whatsapp('How can I help?')).status, 200, 'the window is open and they have not opted out');
    await writes(' stop! ');
    const sent = t.sim.messages().length;
    const calls = t.sim.calls().length;
    const text = await whatsapp('Are you sure?');
    assert.equal(text.status, 403);
    const refused = await body(text);
    assert.equal(refused.code, 'RECIPIENT_OPTED_OUT');
    assert.match(refused.error, /whatsapp-opt-out/);
    assert.match(refused.error, /write START on WhatsApp/);
    const call = await t.call('POST', '/api/v1/make-call', { token: agent.securityToken, json: { to: PERSON, greeting: 'Hello' } });
    assert.deepEqual([call.status, (await body(call)).code], [403, 'RECIPIENT_OPTED_OUT']);
    assert.equal(t.sim.messages().length, sent, 'no provider was asked to send');
    assert.equal(t.sim.calls().length, calls, 'no call was placed');
    assert.equal((await whatsapp('From another agent', other.securityToken)).status, 200, "the opt-out is this agent's");
    const history = await body(await t.call('GET', `/admin/api/do-not-contact/history?address=${encodeURIComponent(PERSON)}`, { token: t.orchestratorToken }));
    assert.deepEqual(history.changes.map((c: any) => [c.action, c.scope, c.source, c.actor]), [['added', 'wa-stop-bot', 'whatsapp-opt-out', 'contact']]);
  });

  it('a message that only contains the word is no opt-out; START lets the agent write again', async () => {
    await writes('Please stop calling me at work');
    assert.equal((await whatsapp('Noted')).status, 403, 'still opted out: a sentence neither opts out nor in');
    await writes('START');
    assert.equal((await whatsapp('Welcome back')).status, 200);
    const history = await body(await t.call('GET', `/admin/api/do-not-contact/history?address=${encodeURIComponent(PERSON)}`, { token: t.orchestratorToken }));
    assert.deepEqual(history.changes.map((c: any) => [c.action, c.source]), [['added', 'whatsapp-opt-out'], ['removed', 'whatsapp-opt-out']]);
    await writes('Please stop by the shop tomorrow');
    assert.equal((await whatsapp('Will do')).status, 200, 'a sentence with the word in it is not an opt-out');
  });
});
