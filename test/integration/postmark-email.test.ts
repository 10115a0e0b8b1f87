// Postmark chosen for email the way an operator chooses it (DRIVERS names the package, DRIVER_POSTMARK_*
// carry its settings, EMAIL_DRIVER picks it), against the simulated Postmark through the official SDK:
// sends are delivered by Postmark's Delivery webhook, inbound email reaches the agent, a webhook without
// the URL's Basic credentials is refused and stores nothing, a hard bounce suppresses the address until
// the operator lifts it; and with EMAIL_DRIVER=resend,postmark an email Resend provably did not take
// (its port refusing connections, a 503) goes to Postmark, never to both.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simulatorDriverSpecs } from '@switchboard/gateway';
import type { DriverSpec } from '@switchboard/runtime';
import type { Simulator } from '@switchboard/provider-simulator';
import { eventually } from '@switchboard/runtime/testing';
import { ServerClient } from 'postmark';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const PERSON = 'person@example.com';

/** The built-in drivers and Postmark's, all on the simulator; Resend at `resendBaseUrl` when a test puts a proxy in its way. */
function withPostmark(sim: Simulator, resendBaseUrl = sim.baseUrls.resend): DriverSpec[] {
  const c = sim.credentials.postmark;
  return [
    ...simulatorDriverSpecs(sim).map((spec) => (spec.packageName === '@switchboard/driver-resend' ? { ...spec, settings: { ...spec.settings, baseUrl: resendBaseUrl } } : spec)),
    { packageName: '@switchboard/driver-postmark', settings: { serverToken: c.serverToken, webhookUsername: c.webhookUsername, webhookPassword: c.webhookPassword, baseUrl: sim.baseUrls.postmark } },
  ];
}

type Sent = { status: number; json: Record<string, any> };

describe('Postmark selected for the email channel', { timeout: 90_000 }, () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let n = 0;

  before(async () => {
    t = await startTestGateway({ EMAIL_DRIVER: 'postmark', EMAIL_DOMAIN: 'switchboard.test' }, undefined, { drivers: (sim) => withPostmark(sim) });
    agent = await provisionAgent(t, 'pm', ['email']);
  });
  after(async () => {
    await t?.close();
  });

  const email = async (to: string, extra: Record<string, unknown> = {}): Promise<Sent> => {
    const res = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'email', to, subject: 'Your invoice', body: `Attached, ${++n}.`, ...extra } });
    return { status: res.status, json: (await res.json()) as Record<string, any> };
  };
  const stored = (sql: string) => t.gateway.runtime.inspect.stored.row<Record<string, unknown>>(sql);
  const postmarkClient = () => {
    const url = new URL(t.sim.baseUrls.postmark);
    return new ServerClient(t.sim.credentials.postmark.serverToken, { requestHost: `${url.host}${url.pathname}`, useHttps: false });
  };

  it('sends through Postmark only, from the agent address; its Delivery webhook settles the message as delivered', async () => {
    const sent = await email(PERSON);
    assert.equal(sent.status, 200, JSON.stringify(sent.json));
    assert.deepEqual([sent.json.provider, sent.json.from], ['postmark', agent.channels.email!.address]);
    const [message] = t.sim.messages({ provider: 'postmark', to: PERSON });
    assert.deepEqual([message?.id, message?.from, message?.subject], [sent.json.externalId, agent.channels.email!.address, 'Your invoice']);
    assert.deepEqual(t.sim.messages({ provider: 'resend' }), [], 'nothing went to Resend');
    const answer = await t.sim.inbound.postmarkEvent({ agentId: agent.agentId, type: 'Delivery', messageId: sent.json.externalId });
    assert.equal(answer.status, 200, answer.body);
    await eventually(async () => (await stored(`SELECT status FROM messages WHERE external_id = '${sent.json.externalId}'`))?.['status'] === 'delivered', { message: 'the email delivered' });
  });

  it("takes an inbound email posted with the URL's Basic credentials; refuses one without them or with others, storing nothing", async () => {
    const ok = await t.sim.inbound.postmarkEmail({ agentId: agent.agentId, from: `Pat <${PERSON}>`, to: agent.channels.email!.address, subject: 'Question', text: 'Are you there?' });
    assert.equal(ok.status, 200, ok.body);
    await eventually(async () => (await stored(`SELECT body FROM messages WHERE agent_id = 'pm' AND direction = 'inbound' AND external_id = '${ok.id}'`))?.['body'] === 'Are you there?', {
      message: 'the inbound email stored',
    });
    for (const auth of [{ omitCredentials: true }, { credentials: { username: t.sim.credentials.postmark.webhookUsername, password: 'not-the-password-at-all' } }]) {
      const refused = await t.sim.inbound.postmarkEmail({ agentId: agent.agentId, from: PERSON, to: agent.channels.email!.address, subject: 'Forged', text: 'forged', ...auth });
      assert.equal(refused.status, 403, refused.body);
      const body = JSON.parse(refused.body) as { code: string; error: string };
      assert.equal(body.code, 'SIGNATURE_INVALID');
      assert.match(body.error, /credentials/);
    }
    const forged = await stored(`SELECT COUNT(*) AS n FROM messages WHERE agent_id = 'pm' AND direction = 'inbound' AND body = 'forged'`);
    assert.equal(Number(forged?.['n']), 0);
  });

  it('a hard bounce suppresses the next email to that address, nothing reaching Postmark; lifted (and reactivated at Postmark), it goes out', async () => {
    const sent = await email('gone@example.com');
    assert.equal(sent.status, 200, JSON.stringify(sent.json));
    const bounced = await t.sim.inbound.postmarkEvent({ agentId: agent.agentId, type: 'HardBounce', messageId: sent.json.externalId });
    assert.equal(bounced.status, 200, bounced.body);
    const reached = t.sim.messages({ provider: 'postmark' }).length;
    const refused = await eventually(async () => {
      const answer = await email('gone@example.com');
      return answer.status === 403 ? answer : undefined;
    }, { message: 'the bounced address refused' });
    assert.equal(refused.json.code, 'EMAIL_SUPPRESSED');
    assert.deepEqual([refused.json.details[0].source, refused.json.details[0].event], ['email-bounce', 'HardBounce']);
    assert.equal(t.sim.messages({ provider: 'postmark' }).length, reached, 'the refused email reached Postmark');

    const lifted = await t.call('POST', '/admin/api/do-not-contact/remove', { token: t.orchestratorToken, json: { address: 'gone@example.com', scope: agent.agentId, reason: 'the mailbox exists again' } });
    assert.equal(lifted.status, 200, await lifted.clone().text());
    // Postmark deactivated the address too: the operator reactivates its bounce there (its id is in the message's events).
    const client = postmarkClient();
    const events = (await client.getOutboundMessageDetails(sent.json.externalId)).MessageEvents;
    const bounceId = Number((events.find((e) => e.Type === 'Bounced')?.Details as { BounceID?: string } | undefined)?.BounceID);
    await client.activateBounce(bounceId);
    const again = await email('gone@example.com');
    assert.deepEqual([again.status, again.json.provider], [200, 'postmark'], JSON.stringify(again.json));
  });
});

describe('Resend then Postmark for email (EMAIL_DRIVER=resend,postmark)', { timeout: 90_000 }, () => {
  let t: TestGateway;
  let resendPort: TcpProxy;
  let simPort = 0;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let n = 0;

  before(async () => {
    // Resend is reached through a proxy the test can close (connections refused) and open again.
    resendPort = await startTcpProxy(() => simPort);
    t = await startTestGateway({ EMAIL_DRIVER: 'resend,postmark', EMAIL_DOMAIN: 'switchboard.test', PROVIDER_CIRCUIT_HALF_OPEN_MS: 300, SEND_TIMEOUT_MS: 1500 }, undefined, {
      drivers: (sim) => {
        simPort = Number(new URL(sim.url).port);
        return withPostmark(sim, sim.baseUrls.resend.replace(`:${simPort}/`, `:${resendPort.port}/`));
      },
    });
    agent = await provisionAgent(t, 'both', ['email']);
  });
  after(async () => {
    await t?.close();
    await resendPort?.close();
  });

  const email = async (): Promise<Sent & { body: string }> => {
    const body = `failover check ${++n}`;
    const res = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'email', to: PERSON, subject: 'Status', body } });
    return { body, status: res.status, json: (await res.json()) as Record<string, any> };
  };
  const count = (provider: 'resend' | 'postmark', body: string) => t.sim.messages({ provider }).filter((m) => m.body === body).length;
  /** Each email reached Postmark once, from the agent's own address, and Resend never. */
  const atPostmarkOnly = (sent: readonly (Sent & { body: string })[]) => {
    for (const s of sent) assert.deepEqual([s.status, s.json.provider, s.json.from], [200, 'postmark', agent.channels.email!.address], JSON.stringify(s.json));
    assert.deepEqual(sent.map((s) => [count('resend', s.body), count('postmark', s.body)]), sent.map(() => [0, 1]));
  };
  const backAtResend = () =>
    eventually(async () => ((await email()).json.provider === 'resend' ? true : undefined), { timeoutMs: 20_000, intervalMs: 200, message: "Resend's circuit to close again once it answers" });

  it('sends through Resend while it takes emails', async () => {
    const sent = await email();
    assert.deepEqual([sent.status, sent.json.provider], [200, 'resend'], JSON.stringify(sent.json));
    assert.deepEqual([count('resend', sent.body), count('postmark', sent.body)], [1, 0]);
  });

  it('Resend refusing connections: each email goes to Postmark from the same address, none to both; Postmark webhooks verify at the shared URL', async () => {
    await resendPort.refuse();
    try {
      const sent = await Promise.all([email(), email(), email()]);
      atPostmarkOnly(sent);
      const delivered = await t.sim.inbound.postmarkEvent({ agentId: agent.agentId, type: 'Delivery', messageId: sent[0]!.json.externalId });
      assert.equal(delivered.status, 200, delivered.body);
      await eventually(
        async () => (await t.gateway.runtime.inspect.stored.row<{ status: string }>(`SELECT status FROM messages WHERE external_id = '${sent[0]!.json.externalId}'`))?.status === 'delivered',
        { message: 'the failed-over email delivered' },
      );
    } finally {
      await resendPort.restore();
    }
    await backAtResend();
  });

  it('Resend answering 503 before taking them: each goes to Postmark, none to both', async () => {
    t.sim.faults.add({ provider: 'resend', pathIncludes: '/emails', method: 'POST', status: 503 });
    try {
      atPostmarkOnly(await Promise.all([email(), email()]));
    } finally {
      t.sim.faults.clear();
    }
  });
});
