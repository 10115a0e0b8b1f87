import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@switchboard/runtime/testing';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

describe('email suppression: a hard bounce or a complaint suppresses the address for the agent, with its reason, until the operator lifts it', () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let other: Awaited<ReturnType<typeof provisionAgent>>;

  before(async () => {
    t = await startTestGateway();
    agent = await provisionAgent(t, 'mailer', ['email']);
    other = await provisionAgent(t, 'other-mailer', ['email']);
  });
  after(async () => {
    await t.close();
  });

  const email = (to: string, token = agent.securityToken) =>
    t.call('POST', '/api/v1/send-message', { token, json: { channel: 'email', to, subject: 'Your invoice', body: 'Attached.' } });
  /** Sends one email to `to` and has the provider report `type` for it. */
  const reported = async (to: string, type: 'email.bounced' | 'email.complained') => {
    const sent = await email(to);
    assert.equal(sent.status, 200, await sent.clone().text());
    const { externalId } = (await sent.json()) as { externalId: string };
    const answer = await t.sim.inbound.emailEvent({ agentId: agent.agentId, type, emailId: externalId });
    assert.equal(answer.status, 200);
  };
  const refusal = async (to: string) => {
    const res = await email(to);
    return { status: res.status, body: (await res.json()) as { code: string; error: string; details: { source: string; event: string; since: string }[] } };
  };

  it('a hard bounce: the next email is refused with the event, nothing reaches the provider; other agents may still write; lifting it allows it', async () => {
    await reported('gone@example.com', 'email.bounced');
    const sent = t.sim.messages({ provider: 'resend' }).length;
    const { status, body } = await eventually(async () => {
      const answer = await refusal('GONE@example.com');
      return answer.status === 403 ? answer : undefined;
    }, { message: 'the bounced address refused' });
    assert.equal(status, 403);
    assert.equal(body.code, 'EMAIL_SUPPRESSED');
    assert.deepEqual([body.details[0]!.source, body.details[0]!.event], ['email-bounce', 'Permanent:General']);
    assert.match(body.error, /bounced for good/);
    assert.equal(t.sim.messages({ provider: 'resend' }).length, sent, 'the refused email reached the provider');
    // Suppressed for this agent only.
    assert.equal((await email('gone@example.com', other.securityToken)).status, 200);
    // The operator lifts it, with a reason the log keeps; the agent may write again.
    const lifted = await t.call('POST', '/admin/api/do-not-contact/remove', { token: t.orchestratorToken, json: { address: 'gone@example.com', scope: agent.agentId, reason: 'the mailbox exists again' } });
    assert.equal(lifted.status, 200, await lifted.clone().text());
    assert.equal((await email('gone@example.com')).status, 200);
  });

  it('a complaint suppresses too, named as a complaint; the refusal is counted for the operator', async () => {
    await reported('angry@example.com', 'email.complained');
    const { body } = await eventually(async () => {
      const answer = await refusal('angry@example.com');
      return answer.status === 403 ? answer : undefined;
    }, { message: 'the complaining address refused' });
    assert.deepEqual([body.code, body.details[0]!.source], ['EMAIL_SUPPRESSED', 'complaint']);
    const listed = await t.call('GET', `/admin/api/refusals?agentId=${agent.agentId}&code=EMAIL_SUPPRESSED`, { token: t.orchestratorToken });
    assert.equal(listed.status, 200, await listed.clone().text());
    const { refusals } = (await listed.json()) as { refusals: { address: string }[] };
    assert.ok(refusals.some((r) => r.address === 'angry@example.com'), JSON.stringify(refusals));
  });
});
