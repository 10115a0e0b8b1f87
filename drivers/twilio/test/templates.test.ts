import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import { ErrorCodes, isRetryable, type Driver } from '@switchboard/sdk';
import driver from '../src/index.js';

const SENDER = '+15005550006';
const context = { logger: { debug() {}, info() {}, warn() {}, error() {} }, publicBaseUrl: 'http://127.0.0.1' };

describe('Twilio driver: WhatsApp templates through the Content API', () => {
  let sim: Simulator;
  let twilio: Driver;
  before(async () => {
    sim = await startSimulator({ phoneNumbers: [SENDER], statusCallbacks: false });
    twilio = await driver.create({ ...sim.credentials.twilio, baseUrl: sim.baseUrls.twilio }, context);
  });
  after(async () => {
    await twilio.close?.();
    await sim.close();
  });

  it('lists the templates with their WhatsApp approval, text and sample variables', async () => {
    const templates = await twilio.templates!.list('whatsapp');
    assert.deepEqual(
      templates.map((t) => [t.name, t.language, t.status, t.category]),
      [
        ['appointment_reminder', 'en', 'approved', 'UTILITY'],
        ['order_update', 'en', 'approved', 'UTILITY'],
        ['spring_offer', 'en', 'pending', 'MARKETING'],
      ],
    );
    assert.match(templates[0]!.id, /^HX[0-9a-f]{32}$/);
    assert.match(templates[0]!.body ?? '', /\{\{1\}\}/);
    assert.deepEqual(templates[1]!.variables, { 1: '#1042', 2: 'tomorrow' });
  });

  it('sends a template by Content SID with its variables as ContentVariables, and no Body', async () => {
    const [reminder] = await twilio.templates!.list('whatsapp');
    const to = '+14155550131';
    const result = await twilio.send!({ channel: 'whatsapp', from: SENDER, to, body: '', template: { id: reminder!.id, variables: { 1: 'Sam', 2: 'Friday' } } });
    assert.match(result.externalId, /^SM/);
    assert.equal(result.body, 'Hello Sam, this is a reminder of your appointment on Friday. Reply here to confirm or change it.', 'the text Twilio rendered');
    const sent = sim.messages({ to: `whatsapp:${to}` });
    assert.deepEqual([sent[0]?.contentSid, sent[0]?.contentVariables], [reminder!.id, { 1: 'Sam', 2: 'Friday' }]);
    const form = sim.requests('twilio').findLast((r) => r.method === 'POST')?.body as Record<string, string>;
    assert.equal(form['Body'], undefined, 'a template send carries no Body');
    assert.equal(form['ContentVariables'], '{"1":"Sam","2":"Friday"}');
  });

  it('looks a template up by name and language; a name with no approved template is a final provider error', async () => {
    const to = '+14155550132';
    await twilio.send!({ channel: 'whatsapp', from: SENDER, to, body: '', template: { name: 'order_update', language: 'en', variables: { 1: '#7' } } });
    const [order] = (await twilio.templates!.list('whatsapp')).filter((t) => t.name === 'order_update');
    assert.equal(sim.messages({ to: `whatsapp:${to}` })[0]?.contentSid, order!.id);
    for (const template of [{ name: 'spring_offer' }, { name: 'order_update', language: 'fr' }, { name: 'no_such_template' }]) {
      await assert.rejects(twilio.send!({ channel: 'whatsapp', from: SENDER, to, body: '', template }), (err: unknown) => {
        assert.equal((err as { code?: string }).code, ErrorCodes.PROVIDER_ERROR);
        assert.match((err as Error).message, /no approved WhatsApp template is named/);
        assert.equal(isRetryable(err), false);
        return true;
      });
    }
  });
});
