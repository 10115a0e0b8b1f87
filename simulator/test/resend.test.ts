import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { startSimulator, type Simulator } from '../src/index.js';

describe('Resend API through the resend SDK', () => {
  let sim: Simulator;
  let resend: Resend;

  before(async () => {
    sim = await startSimulator();
    resend = new Resend(sim.credentials.resend.apiKey, { baseUrl: sim.baseUrls.resend });
  });
  after(() => sim.close());

  it('sends an email, records it and returns it by id', async () => {
    const { data, error } = await resend.emails.send({
      from: 'Agent <agent@switchboard.test>',
      to: ['ada@example.com', 'bob@example.com'],
      subject: 'Quarterly report',
      text: 'Numbers attached.',
      html: '<p>Numbers attached.</p>',
    });
    assert.equal(error, null);
    assert.match(data!.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const [sent] = sim.messages({ channel: 'email', to: 'bob@example.com' });
    assert.equal(sent?.id, data!.id);
    assert.equal(sent?.subject, 'Quarterly report');
    assert.equal(sent?.html, '<p>Numbers attached.</p>');
    assert.equal(sent?.body, 'Numbers attached.');

    const got = await resend.emails.get(data!.id);
    assert.equal(got.data?.object, 'email');
    assert.deepEqual(got.data?.to, ['ada@example.com', 'bob@example.com']);
    assert.equal(got.data?.last_event, 'sent');
    assert.equal(got.data?.from, 'Agent <agent@switchboard.test>');
    const missing = await resend.emails.get('00000000-0000-4000-8000-000000000000');
    assert.deepEqual(missing.error, { statusCode: 404, message: 'Email not found', name: 'not_found' });
  });

  it('honours Idempotency-Key like Resend', async () => {
    const email = { from: 'agent@switchboard.test', to: 'carol@example.com', subject: 'Once', text: 'only once' };
    const first = await resend.emails.send(email, { idempotencyKey: 'order-42' });
    const again = await resend.emails.send(email, { idempotencyKey: 'order-42' });
    assert.equal(again.data?.id, first.data?.id);
    assert.equal(sim.messages({ to: 'carol@example.com' }).length, 1);
    const changed = await resend.emails.send({ ...email, text: 'different' }, { idempotencyKey: 'order-42' });
    assert.equal(changed.error?.statusCode, 409);
    assert.equal(changed.error?.name, 'invalid_idempotent_request');
    const other = await resend.emails.send(email, { idempotencyKey: 'order-43' });
    assert.notEqual(other.data?.id, first.data?.id);
  });

  it('validates like Resend, in its error shape', async () => {
    const noTo = await resend.emails.send({ from: 'agent@switchboard.test', subject: 's', text: 't' } as never);
    assert.deepEqual(noTo.error, { statusCode: 422, message: 'Missing `to` field.', name: 'missing_required_field' });
    const badFrom = await resend.emails.send({ from: 'not an address', to: 'a@example.com', subject: 's', text: 't' });
    assert.equal(badFrom.error?.statusCode, 422);
    assert.equal(badFrom.error?.name, 'validation_error');
    const noSubject = await resend.emails.send({ from: 'agent@switchboard.test', to: 'a@example.com', text: 't' } as never);
    assert.equal(noSubject.error?.message, 'Missing `subject` field.');
  });

  it('refuses a missing key with 401 and a wrong key with 403', async () => {
    const wrong = new Resend('re_wrong_key', { baseUrl: sim.baseUrls.resend });
    const refused = await wrong.emails.send({ from: 'agent@switchboard.test', to: 'a@example.com', subject: 's', text: 't' });
    assert.deepEqual(refused.error, { statusCode: 403, message: 'API key is invalid', name: 'invalid_api_key' });
    const res = await fetch(`${sim.baseUrls.resend}/emails`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { name: string }).name, 'missing_api_key');
  });

  it('lists domains', async () => {
    const { data } = await resend.domains.list();
    assert.equal(data?.object, 'list');
    assert.deepEqual(data?.data.map((d) => [d.name, d.status]), [['switchboard.test', 'verified']]);
  });
});
