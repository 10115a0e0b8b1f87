import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { hasErrorCode } from '@switchboard/sdk';
import { ContactPolicy } from '../../src/compliance/contact-policy.js';
import { RecipientPlaces } from '../../src/compliance/recipient-place.js';
import { RecordedContactPolicy } from '../../src/compliance/refusals.js';
import { personOf } from '../../src/compliance/operations.js';
import { RuntimeEvents } from '../../src/events.js';
import { openStore, type Store } from '../../src/store/store.js';

const PERSON = '+14155550188';
/** Noon where PERSON is (San Francisco): the checks below are not about calling hours, whatever the time of the run. */
const NOON_THERE = new Date('2026-11-30T20:00:00Z');

describe('refusals of the contact policy are stored and reported', () => {
  let dir: string;
  let store: Store;
  let events: RuntimeEvents;
  let policy: RecordedContactPolicy;
  const reported: { agentId: string; channel: string; code: string }[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-refusals-'));
    store = await openStore({ dataDir: dir });
    events = new RuntimeEvents();
    events.on('contactRefused', (event) => reported.push(event));
    const inner = new ContactPolicy({ doNotContact: store.doNotContact, consents: store.consents, places: new RecipientPlaces(), clock: () => NOON_THERE });
    policy = new RecordedContactPolicy(inner, store.contactRefusals, events, pino({ level: 'silent' }));
  });
  after(async () => {
    await store.db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an allowed contact leaves no trace; a refused one is stored with its code, channel and sentence, and reported', async () => {
    await policy.check({ agentId: 'agent-r', channel: 'sms', to: PERSON });
    assert.deepEqual(await store.contactRefusals.list({ limit: 10 }), []);
    assert.deepEqual(reported, []);
    await store.doNotContact.add({ address: PERSON, scope: 'agent-r', source: 'agent', reason: 'asked on a call', actor: 'agent:agent-r' });
    await assert.rejects(policy.check({ agentId: 'agent-r', channel: 'whatsapp', to: `whatsapp:${PERSON}` }), (err) => hasErrorCode(err, 'RECIPIENT_OPTED_OUT'));
    await assert.rejects(policy.check({ agentId: 'agent-s', channel: 'voice', to: PERSON, call: true }, { requireConsent: ['automated-call'] }), (err) => hasErrorCode(err, 'CONSENT_REQUIRED'));
    assert.deepEqual(reported, [
      { agentId: 'agent-r', channel: 'whatsapp', code: 'RECIPIENT_OPTED_OUT' },
      { agentId: 'agent-s', channel: 'voice', code: 'CONSENT_REQUIRED' },
    ]);
    const stored = await store.contactRefusals.list({ limit: 10 });
    assert.deepEqual(
      stored.map((r) => [r.agentId, r.channel, r.address, r.code, r.call]),
      [
        ['agent-s', 'voice', PERSON, 'CONSENT_REQUIRED', true],
        ['agent-r', 'whatsapp', PERSON, 'RECIPIENT_OPTED_OUT', false],
      ],
      'newest first, the person without whatsapp:',
    );
    assert.match(stored[1]!.message, /do-not-contact list/);
    assert.deepEqual((await store.contactRefusals.list({ agentId: 'agent-r', limit: 10 })).map((r) => r.code), ['RECIPIENT_OPTED_OUT']);
    assert.deepEqual((await store.contactRefusals.list({ code: 'CONSENT_REQUIRED', limit: 10 })).map((r) => r.agentId), ['agent-s']);
    const [first] = await store.contactRefusals.list({ limit: 1 });
    assert.deepEqual((await store.contactRefusals.list({ before: first!, limit: 10 })).map((r) => r.agentId), ['agent-r'], 'the page after the first');
    assert.deepEqual(await store.contactRefusals.countsSince('2000-01-01T00:00:00Z'), { RECIPIENT_OPTED_OUT: 1, CONSENT_REQUIRED: 1 });
  });

  it('a refusal that cannot be stored is still the answer', async () => {
    const failing = new RecordedContactPolicy(
      new ContactPolicy({ doNotContact: store.doNotContact, consents: store.consents, places: new RecipientPlaces(), clock: () => NOON_THERE }),
      { record: () => Promise.reject(new Error('disk full')) },
      events,
      pino({ level: 'silent' }),
    );
    await assert.rejects(failing.check({ agentId: 'agent-r', channel: 'sms', to: PERSON }), (err) => hasErrorCode(err, 'RECIPIENT_OPTED_OUT'));
  });

  it('what is not a refusal (a store that fails) is neither stored nor counted', async () => {
    const before = reported.length;
    const ended = () => Promise.reject(Object.assign(new Error('connection ended'), { code: '57P01' }));
    const broken = new RecordedContactPolicy({ check: ended, checkRules: ended, listCondition: () => ({ sql: 'TRUE', params: [] }) }, store.contactRefusals, events, pino({ level: 'silent' }));
    await assert.rejects(broken.check({ agentId: 'agent-r', channel: 'sms', to: PERSON }), /connection ended/);
    assert.equal(reported.length, before);
    assert.equal((await store.contactRefusals.list({ limit: 10 })).length, 2);
  });

  it('reads the person an agent names by the channel that names them, or refuses it', () => {
    assert.equal(personOf('whatsapp:+14155550188', 'whatsapp'), PERSON);
    assert.equal(personOf('Someone@Example.com'), 'someone@example.com');
    assert.equal(personOf('+14155550188', 'voice'), PERSON);
    assert.throws(() => personOf('someone@example.com', 'sms'), (err) => hasErrorCode(err, 'VALIDATION_FAILED'));
    assert.throws(() => personOf('555-0100'), (err) => hasErrorCode(err, 'VALIDATION_FAILED'));
  });
});
