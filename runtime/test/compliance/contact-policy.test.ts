import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hasErrorCode } from '@switchboard/sdk';
import { ContactPolicy, personAddress } from '../../src/compliance/contact-policy.js';
import { RecipientPlaces } from '../../src/compliance/recipient-place.js';
import { OPERATOR_SCOPE } from '../../src/store/repositories/do-not-contact.js';
import { openStore, type Store } from '../../src/store/store.js';

const NEW_YORK = '+12125550123';
const PARIS = '+33142685300';

describe('the contact policy: one step before every outbound message and call', () => {
  let dir: string;
  let store: Store;
  let now = new Date('2026-11-25T17:00:00Z'); // noon in New York, 18:00 in Paris (a Wednesday)
  let policy: ContactPolicy;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-policy-'));
    store = await openStore({ dataDir: dir });
    policy = new ContactPolicy({ doNotContact: store.doNotContact, consents: store.consents, places: new RecipientPlaces(), clock: () => now });
  });
  after(async () => {
    await store.db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const refusal = async (promise: Promise<void>) => {
    try {
      await promise;
      return 'allowed';
    } catch (err) {
      assert.ok(hasErrorCode(err), String(err));
      return err.code;
    }
  };

  it('a number on the do-not-contact list is refused on every channel, calls included; another agent is not kept from it', async () => {
    await store.doNotContact.add({ address: NEW_YORK, scope: 'agent-a', source: 'sms-stop', reason: null, actor: 'contact' });
    assert.equal(await refusal(policy.check({ agentId: 'agent-a', channel: 'sms', to: NEW_YORK })), 'RECIPIENT_OPTED_OUT');
    assert.equal(await refusal(policy.check({ agentId: 'agent-a', channel: 'whatsapp', to: `whatsapp:${NEW_YORK}` })), 'RECIPIENT_OPTED_OUT', 'a STOP by text covers WhatsApp');
    assert.equal(await refusal(policy.check({ agentId: 'agent-a', channel: 'voice', to: NEW_YORK, call: true })), 'RECIPIENT_OPTED_OUT', 'and calls');
    assert.equal(await refusal(policy.check({ agentId: 'agent-b', channel: 'sms', to: NEW_YORK })), 'allowed');
    await store.doNotContact.add({ address: 'person@example.com', scope: OPERATOR_SCOPE, source: 'email-unsubscribe', reason: null, actor: 'contact' });
    assert.equal(await refusal(policy.check({ agentId: 'agent-b', channel: 'email', to: 'Person@Example.com' })), 'RECIPIENT_OPTED_OUT', 'email addresses compare without case');
  });

  it('calls and marketing texts keep the recipient\'s hours; the refusal says when they open; plain texts do not wait', async () => {
    now = new Date('2026-11-26T03:30:00Z'); // 22:30 in New York
    let seen: unknown;
    await policy.check({ agentId: 'agent-b', channel: 'voice', to: NEW_YORK, call: true }).catch((err: unknown) => (seen = err));
    assert.ok(hasErrorCode(seen, 'OUTSIDE_CALLING_HOURS'));
    assert.match(String((seen as { message: string }).message), /try again from 2026-11-26T13:00:00.000Z/);
    assert.equal(await refusal(policy.check({ agentId: 'agent-b', channel: 'sms', to: NEW_YORK, marketing: true })), 'OUTSIDE_CALLING_HOURS');
    assert.equal(await refusal(policy.check({ agentId: 'agent-b', channel: 'sms', to: NEW_YORK })), 'allowed', 'a reply or a service text is not a call');
    assert.equal(await refusal(policy.check({ agentId: 'agent-b', channel: 'voice', to: NEW_YORK, call: true }, { callingHoursOverride: { reason: 'on-call pager' }, requireConsent: ['automated-call'] })), 'CONSENT_REQUIRED', 'an override waives the hours, not consent');
    assert.equal(await refusal(policy.check({ agentId: 'agent-b', channel: 'voice', to: NEW_YORK, call: true }, { callingHoursOverride: { reason: 'on-call pager' } })), 'allowed');
    const hoursOff = new ContactPolicy({ doNotContact: store.doNotContact, consents: store.consents, places: new RecipientPlaces(), clock: () => now, callingHours: false });
    assert.equal(await refusal(hoursOff.check({ agentId: 'agent-b', channel: 'voice', to: NEW_YORK, call: true })), 'allowed', 'CALLING_HOURS=off');
    now = new Date('2026-11-25T17:00:00Z');
  });

  it('an agent that requires consent cannot call without it: refused, allowed once recorded, refused after revoking', async () => {
    const call = { agentId: 'agent-b', channel: 'voice', to: NEW_YORK, call: true } as const;
    const requiring = { requireConsent: ['automated-call'] } as const;
    assert.equal(await refusal(policy.check(call)), 'allowed', 'an agent that does not require it calls in hours');
    assert.equal(await refusal(policy.check(call, requiring)), 'CONSENT_REQUIRED');
    await store.consents.record({ address: NEW_YORK, scope: 'agent-b', kind: 'automated-call', source: 'web-form', evidence: 'form 12' });
    assert.equal(await refusal(policy.check(call, requiring)), 'allowed');
    await store.consents.revoke(NEW_YORK, 'agent-b', 'automated-call');
    assert.equal(await refusal(policy.check(call, requiring)), 'CONSENT_REQUIRED');
    assert.equal(await refusal(policy.check({ agentId: 'agent-b', channel: 'voice', to: PARIS, call: true }, requiring)), 'CONSENT_REQUIRED', 'wherever the callee is');
  });

  it('an agent that requires consent cannot send marketing without it', async () => {
    const text = { agentId: 'agent-c', channel: 'sms', to: PARIS, marketing: true } as const;
    assert.equal(await refusal(policy.check(text)), 'allowed');
    assert.equal(await refusal(policy.check(text, { requireConsent: ['marketing'] })), 'CONSENT_REQUIRED');
    await store.consents.record({ address: PARIS, scope: OPERATOR_SCOPE, kind: 'marketing', source: 'paper', evidence: null });
    assert.equal(await refusal(policy.check(text, { requireConsent: ['marketing'] })), 'allowed');
  });

  it('an agent that requires transactional consent cannot send a plain message without it; a marketing consent is not one', async () => {
    const text = { agentId: 'agent-d', channel: 'email', to: 'Buyer@Example.com' } as const;
    const requiring = { requireConsent: ['transactional'] } as const;
    assert.equal(await refusal(policy.check(text, { requireConsent: ['automated-call', 'marketing'] })), 'allowed', 'a plain message needs only transactional');
    assert.equal(await refusal(policy.check(text, requiring)), 'CONSENT_REQUIRED');
    await store.consents.record({ address: 'buyer@example.com', scope: 'agent-d', kind: 'marketing', source: 'web-form', evidence: null });
    assert.equal(await refusal(policy.check(text, requiring)), 'CONSENT_REQUIRED', 'marketing consent does not stand for transactional');
    await store.consents.record({ address: 'buyer@example.com', scope: 'agent-d', kind: 'transactional', source: 'web-form', evidence: null });
    assert.equal(await refusal(policy.check(text, requiring)), 'allowed', 'the email address compares without case');
    assert.equal(await refusal(policy.check({ ...text, agentId: 'agent-e' }, requiring)), 'CONSENT_REQUIRED', "another agent's consent is not this agent's");
  });

  it('names the person behind a channel address', () => {
    assert.equal(personAddress('whatsapp', 'whatsapp:+14155550100'), '+14155550100');
    assert.equal(personAddress('email', ' A@B.io '), 'a@b.io');
    assert.equal(personAddress('line', 'U1234'), 'U1234');
  });
});

describe('the addresses an operator names', () => {
  it('keys a number, a WhatsApp address, an email address and a LINE user id; refuses anything else', async () => {
    const { contactAddress } = await import('../../src/compliance/contact-policy.js');
    assert.equal(contactAddress(' +14155550100 '), '+14155550100');
    assert.equal(contactAddress('whatsapp:+14155550100'), '+14155550100');
    assert.equal(contactAddress('Someone@Example.COM'), 'someone@example.com');
    assert.equal(contactAddress(`U${'a'.repeat(32)}`), `U${'a'.repeat(32)}`);
    for (const bad of ['', '4155550100', '+0123', 'not an address', 'a@b', `${'x'.repeat(250)}@example.com`]) assert.equal(contactAddress(bad), undefined, bad);
  });
});
