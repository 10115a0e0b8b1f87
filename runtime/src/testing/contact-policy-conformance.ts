import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Channel } from '@switchboard/sdk';
import { OPERATOR_SCOPE, erasedAddress } from '../store/repositories/do-not-contact.js';
import { inbound, type WithNodes } from './conformance-nodes.js';

const PERSON = '+14155550123';

/** The do-not-contact list and consent records, as every database must keep them. */
export function describeContactPolicyCases(withNodes: WithNodes): void {
  it('do-not-contact: an entry per scope with its source, one added at once by two nodes, and a log of every change', async () => {
    await withNodes(2, async ([a, b]) => {
      const entry = { address: PERSON, scope: 'agent-a', source: 'sms-stop', reason: null, actor: 'contact' } as const;
      const added = await Promise.all([a!.doNotContact.add(entry), b!.doNotContact.add(entry)]);
      assert.deepEqual(added.sort(), [false, true], 'one of the two adds it');
      assert.equal((await a!.doNotContact.blocking(PERSON, 'agent-a'))?.source, 'sms-stop');
      assert.equal(await a!.doNotContact.blocking(PERSON, 'agent-b'), undefined, 'another agent is not kept from it');
      await b!.doNotContact.add({ ...entry, scope: OPERATOR_SCOPE, source: 'admin', reason: 'asked by phone', actor: 'admin:ops' });
      assert.equal((await a!.doNotContact.blocking(PERSON, 'agent-b'))?.scope, OPERATOR_SCOPE, 'the operator\'s entry keeps every agent');
      assert.equal((await a!.doNotContact.list({ scope: 'agent-a' })).length, 1);
      assert.equal((await a!.doNotContact.list()).length, 2);
      assert.equal(await a!.doNotContact.remove({ address: PERSON, scope: OPERATOR_SCOPE, source: 'admin', reason: 'entered by mistake', actor: 'admin:ops' }), true);
      assert.equal(await a!.doNotContact.remove({ address: PERSON, scope: OPERATOR_SCOPE, source: 'admin', reason: 'again', actor: 'admin:ops' }), false);
      const history = await b!.doNotContact.history(PERSON);
      assert.deepEqual(
        history.map((h) => [h.action, h.scope, h.actor, h.reason]),
        [
          ['added', 'agent-a', 'contact', null],
          ['added', OPERATOR_SCOPE, 'admin:ops', 'asked by phone'],
          ['removed', OPERATOR_SCOPE, 'admin:ops', 'entered by mistake'],
        ],
      );
    });
  });

  it('do-not-contact: an entry narrowed to some channels keeps the person from those only, and the log says so', async () => {
    await withNodes(2, async ([a, b]) => {
      await a!.doNotContact.add({ address: PERSON, scope: 'agent-n', source: 'sms-stop', reason: null, actor: 'contact' });
      assert.equal(await b!.doNotContact.narrow({ address: PERSON, scope: 'agent-n', channels: ['sms'], reason: 'texts only', actor: 'admin:ops' }), true);
      assert.equal(await b!.doNotContact.narrow({ address: PERSON, scope: 'agent-x', channels: ['sms'], reason: 'none there', actor: 'admin:ops' }), false);
      assert.deepEqual((await a!.doNotContact.blocking(PERSON, 'agent-n', 'sms'))?.channels, ['sms']);
      assert.equal(await a!.doNotContact.blocking(PERSON, 'agent-n', 'voice'), undefined, 'a call is no longer kept from them');
      assert.deepEqual((await b!.doNotContact.history(PERSON)).map((h) => [h.action, h.reason]).at(-1), ['narrowed', 'texts only (now sms only)']);
    });
  });

  it('do-not-contact: a write guarded by the list goes in exactly when `blocking` finds no entry', async () => {
    await withNodes(2, async ([a, b]) => {
      const now = new Date().toISOString();
      const message = { ...inbound('agent-g', 'SMG', now), externalId: null, direction: 'outbound' as const, status: 'queued' as const, delivery: 'done' as const, to: PERSON };
      let n = 0;
      const agrees = async (agentId: string, channel: Channel, why: string) => {
        const blocked = (await b!.doNotContact.blocking(PERSON, agentId, channel)) !== undefined;
        const guarded = a!.messages.insertOutboundStatement({ ...message, id: `msg-g${(n += 1)}`, agentId, channel }, [a!.doNotContact.absentCondition(PERSON, agentId, channel)]);
        const [stored] = await a!.db.executeAll([guarded]);
        assert.equal(stored!.changes, blocked ? 0 : 1, why);
      };
      await agrees('agent-g', 'sms', 'no entry');
      await a!.doNotContact.add({ address: PERSON, scope: 'agent-g', source: 'sms-stop', reason: null, actor: 'contact' });
      await agrees('agent-g', 'sms', "the agent's own entry");
      await agrees('agent-h', 'sms', "another agent's entry");
      await b!.doNotContact.narrow({ address: PERSON, scope: 'agent-g', channels: ['sms'], reason: 'texts only', actor: 'admin:ops' });
      await agrees('agent-g', 'sms', 'narrowed to this channel');
      await agrees('agent-g', 'whatsapp', 'narrowed to another channel');
      await b!.doNotContact.add({ address: erasedAddress(PERSON), scope: OPERATOR_SCOPE, source: 'admin', reason: 'erased', actor: 'admin:ops' });
      await agrees('agent-h', 'whatsapp', "the operator's entry for the erased person");
    });
  });

  it('consents: recorded, checked per kind and scope, revoked with the row kept, and recorded again', async () => {
    await withNodes(1, async ([store]) => {
      const consents = store!.consents;
      assert.equal(await consents.current(PERSON, 'agent-a', 'automated-call'), undefined);
      await consents.record({ address: PERSON, scope: 'agent-a', kind: 'automated-call', source: 'web-form', evidence: 'form 7 at 10:02' }, new Date('2026-11-01T10:02:00Z'));
      assert.equal((await consents.current(PERSON, 'agent-a', 'automated-call'))?.evidence, 'form 7 at 10:02');
      assert.equal(await consents.current(PERSON, 'agent-a', 'marketing'), undefined, 'another kind is not given');
      assert.equal(await consents.current(PERSON, 'agent-b', 'automated-call'), undefined, 'another agent does not have it');
      assert.equal(await consents.revoke(PERSON, 'agent-a', 'automated-call'), true);
      assert.equal(await consents.revoke(PERSON, 'agent-a', 'automated-call'), false, 'nothing live to revoke');
      assert.equal(await consents.current(PERSON, 'agent-a', 'automated-call'), undefined);
      const [kept] = await consents.forAddress(PERSON, 'agent-a');
      assert.ok(kept?.revokedAt, 'the revoked record is kept');
      await consents.record({ address: PERSON, scope: OPERATOR_SCOPE, kind: 'automated-call', source: 'call', evidence: 'call-1' });
      assert.equal((await consents.current(PERSON, 'agent-b', 'automated-call'))?.scope, OPERATOR_SCOPE, 'the operator\'s consent serves every agent');
      await consents.record({ address: PERSON, scope: 'agent-a', kind: 'automated-call', source: 'sms-keyword', evidence: 'YES' });
      assert.equal((await consents.current(PERSON, 'agent-a', 'automated-call'))?.revokedAt, null, 'recording again renews it');
    });
  });

  it('refusals: stored by two nodes, read newest first by agent, code and page, counted by code, swept by age', async () => {
    await withNodes(2, async ([a, b]) => {
      const refusal = { agentId: 'agent-a', channel: 'sms', address: PERSON, code: 'RECIPIENT_OPTED_OUT', call: false, message: 'listed' } as const;
      await a!.contactRefusals.record({ ...refusal, at: '2026-11-01T10:00:00.000Z' });
      await b!.contactRefusals.record({ ...refusal, agentId: 'agent-b', channel: 'voice', code: 'CONSENT_REQUIRED', call: true, at: '2026-11-02T10:00:00.000Z' });
      await a!.contactRefusals.record({ ...refusal, at: '2026-11-03T10:00:00.000Z' });
      const all = await b!.contactRefusals.list({ limit: 10 });
      assert.deepEqual(all.map((r) => [r.agentId, r.code, r.call, r.at]), [
        ['agent-a', 'RECIPIENT_OPTED_OUT', false, '2026-11-03T10:00:00.000Z'],
        ['agent-b', 'CONSENT_REQUIRED', true, '2026-11-02T10:00:00.000Z'],
        ['agent-a', 'RECIPIENT_OPTED_OUT', false, '2026-11-01T10:00:00.000Z'],
      ]);
      assert.deepEqual((await a!.contactRefusals.list({ agentId: 'agent-a', code: 'RECIPIENT_OPTED_OUT', before: all[0]!, limit: 10 })).map((r) => r.at), ['2026-11-01T10:00:00.000Z']);
      assert.deepEqual(await a!.contactRefusals.countsSince('2026-11-02T00:00:00.000Z'), { RECIPIENT_OPTED_OUT: 1, CONSENT_REQUIRED: 1 });
      assert.equal(await b!.contactRefusals.sweep(new Date('2026-11-02T12:00:00.000Z')), 2);
      assert.deepEqual((await a!.contactRefusals.list({ limit: 10 })).map((r) => r.at), ['2026-11-03T10:00:00.000Z']);
    });
  });
}
