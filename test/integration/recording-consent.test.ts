import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@switchboard/runtime/testing';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** San Francisco: California asks every party's consent to record (Penal Code § 632). */
const CALIFORNIA = '+14155550871';
/** New York City: one party's consent will do. */
const NEW_YORK = '+12125550172';
/** Paris: France asks every party's consent. */
const PARIS = '+33142685300';

describe("recording consent: a recorded call to an all-party-consent place says so first, in the call's language, and the ledger keeps it", () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;

  before(async () => {
    t = await startTestGateway({ VOICE_MODE: 'relay', RECORDING_ANNOUNCEMENTS: 'fr=Cet appel est enregistré pour la qualité.' });
    agent = await provisionAgent(t, 'consent-caller', ['voice']);
  });
  after(async () => {
    await t.close();
  });

  /** Places a call (no agent answers its turns: the greeting, then the message is taken) and returns what the callee heard first, and the call's ledger. */
  const call = async (to: string, json: Record<string, unknown>) => {
    t.sim.phone.onOutbound(to, { steps: ['Thanks, bye.'], replyTimeoutMs: 4000 });
    const res = await t.call('POST', '/api/v1/make-call', { token: agent.securityToken, json: { to, greeting: 'Hi from the clinic.', ...json } });
    assert.equal(res.status, 200, await res.clone().text());
    const { callSid } = (await res.json()) as { callSid: string };
    const phone = await t.sim.phone.get(callSid)!.done;
    assert.deepEqual(phone.errors, []);
    const ledger = await eventually(
      async () => ((await (await t.call('GET', `/api/v1/calls/${callSid}`, { token: agent.securityToken })).json()) as { ledger: { recordingAnnouncement?: string } | null }).ledger ?? undefined,
      { message: `the ledger of call ${callSid}` },
    );
    return { first: phone.turns[0]!.agent.text, ledger };
  };

  it('California, recorded: the announcement comes before the greeting, and the ledger says it was played', async () => {
    const { first, ledger } = await call(CALIFORNIA, { record: true });
    assert.equal(first, 'This call is recorded. Hi from the clinic.');
    assert.equal(ledger.recordingAnnouncement, 'This call is recorded.');
  });

  it("France, recorded, in French: the operator's wording for the call's language", async () => {
    const { first, ledger } = await call(PARIS, { record: true, language: 'fr-FR' });
    assert.equal(first, 'Cet appel est enregistré pour la qualité. Hi from the clinic.');
    assert.equal(ledger.recordingAnnouncement, 'Cet appel est enregistré pour la qualité.');
  });

  it('New York (one-party consent), recorded, and California not recorded: nothing is announced', async () => {
    for (const [to, record] of [[NEW_YORK, true], [CALIFORNIA, false]] as const) {
      const { first, ledger } = await call(to, { record });
      assert.equal(first, 'Hi from the clinic.', `${to}, record ${record}`);
      assert.equal(ledger.recordingAnnouncement, undefined, `${to}, record ${record}`);
    }
  });
});
