import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import twilio from 'twilio';
import { createTestDatabase, freePort, startNatsServer, type TestDatabase, type TestNatsServer } from '@switchboard/runtime/testing';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { startClusterProcess as startProcess, type ClusterProcess } from '../helpers/cluster-process.js';
import { connectMcp } from '../helpers/mcp-client.js';

const ORCHESTRATOR = `sb_orch_${randomBytes(16).toString('hex')}`;
const LEASE_TTL_MS = 1500;
const AGENTS = 8;
const CUSTOMER = '+14155550142';
const LIMIT = 10;

/** One request of the load: for which agent, and whether it was acknowledged. */
interface Outcome {
  readonly agent: number;
  readonly ok: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('cluster mode: 2 gateways and 3 runtime nodes on NATS and PostgreSQL, the simulator in its own process', () => {
  let nats: TestNatsServer;
  let database: TestDatabase;
  let dataDir: string;
  let simulator: ClusterProcess;
  let twilioAuth: { accountSid: string; authToken: string };
  let publicBaseUrl: string;
  const simulatorUrl = () => (JSON.parse(simulator.output().split('\n').find((l) => l.startsWith('{'))!) as { url: string }).url;
  const gateways: (ClusterProcess & { url: string })[] = [];
  const nodes: ClusterProcess[] = [];
  const receivers: CallbackReceiver[] = [];
  const agents: { agentId: string; token: string; address: string; secret: string }[] = [];
  let env: Record<string, string>;
  let limitedAgent: { token: string; address: string };

  const startGateway = async (name: string, port: number) =>
    Object.assign(await startProcess(name, ['gateway/src/cli.ts', 'gateway', '--port', String(port)], { ...env, NODE_ID: name }, /API:\s+http/), {
      url: `http://127.0.0.1:${port}`,
    });
  const probeUrls: string[] = [];
  const startNode = async (name: string) => {
    const port = await freePort();
    probeUrls.push(`http://127.0.0.1:${port}`);
    return startProcess(name, ['gateway/src/cli.ts', 'runtime'], { ...env, NODE_ID: name, HEALTH_PORT: String(port) }, /runtime node \S+ is running/);
  };

  /** A Twilio SMS webhook for agent `i` with a new MessageSid, signed for the public URL as Twilio would. */
  const signedSms = (i: number, sid: string) => {
    const agent = agents[i]!;
    const params = { MessageSid: sid, SmsSid: sid, AccountSid: twilioAuth.accountSid, From: CUSTOMER, To: agent.address, Body: `hello ${sid}`, NumMedia: '0', SmsStatus: 'received' };
    const path = `/webhooks/${agent.agentId}/sms`;
    const signature = twilio.getExpectedTwilioSignature(twilioAuth.authToken, `${publicBaseUrl}${path}`, params);
    return { path, init: { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, body: new URLSearchParams(params).toString() } };
  };

  before(async () => {
    nats = await startNatsServer();
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-cluster-'));
    simulator = await startProcess('simulator', ['simulator/src/cli.ts', '--port', '0', '--json', '--record-limit', '100000'], {}, /"credentials"/);
    const info = JSON.parse(simulator.output().split('\n').find((l) => l.startsWith('{'))!) as {
      baseUrls: Record<string, string>;
      credentials: { twilio: { accountSid: string; authToken: string } };
    };
    twilioAuth = info.credentials.twilio;
    const ports = [await freePort(), await freePort()];
    // Both gateways stand behind one public address; here the first gateway's, where providers call.
    publicBaseUrl = `http://127.0.0.1:${ports[0]}`;
    env = {
      NATS_URL: nats.url,
      DATABASE_URL: database.url,
      SECRET_KEY: randomBytes(32).toString('hex'),
      PUBLIC_BASE_URL: publicBaseUrl,
      ORCHESTRATOR_TOKEN: ORCHESTRATOR,
      DATA_DIR: dataDir,
      DEMO_MODE: 'false',
      TWILIO_ACCOUNT_SID: twilioAuth.accountSid,
      TWILIO_AUTH_TOKEN: twilioAuth.authToken,
      TWILIO_BASE_URL: info.baseUrls.twilio!,
      POOL_PHONE_NUMBERS: Array.from({ length: AGENTS + 1 }, (_, i) => `+1202555${String(100 + i).padStart(4, '0')}`).join(','),
      CLUSTER_PARTITIONS: '16',
      CLUSTER_LEASE_TTL_MS: String(LEASE_TTL_MS),
      CALLBACK_RETRY_BASE_MS: '100',
      // A dead node's sends are finished a send time-out plus a lease TTL after they were stored.
      SEND_TIMEOUT_MS: '3000',
    };
    for (const name of ['rt-1', 'rt-2', 'rt-3']) nodes.push(await startNode(name));
    gateways.push(await startGateway('gw-1', ports[0]!), await startGateway('gw-2', ports[1]!));
    const auth = { authorization: `Bearer ${ORCHESTRATOR}`, 'content-type': 'application/json' };
    for (let i = 0; i < AGENTS; i++) {
      const receiver = await startCallbackReceiver(() => agents[i]?.secret);
      receivers.push(receiver);
      const agentId = `cluster-agent-${i}`;
      const gateway = gateways[i % 2]!;
      const res = await fetch(`${gateway.url}/api/v1/provision`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ agentId, displayName: agentId, channels: ['sms'], callbackUrl: receiver.url }),
      });
      const body = (await res.json()) as { securityToken: string; signingSecret: string; channels: { sms: { address: string } } };
      assert.equal(res.status, 201, JSON.stringify(body));
      const unlimited = { actionsPerMinute: null, actionsPerHour: null, actionsPerDay: null, spendPerDay: null, spendPerMonth: null };
      const limits = await fetch(`${gateway.url}/admin/api/agents/${agentId}/limits`, { method: 'PUT', headers: auth, body: JSON.stringify({ limits: unlimited }) });
      assert.equal(limits.status, 200);
      agents.push({ agentId, token: body.securityToken, address: body.channels.sms.address, secret: body.signingSecret });
    }
    // One agent keeps a limit: however many gateways and nodes its sends cross, one actor counts them.
    const res = await fetch(`${gateways[0]!.url}/api/v1/provision`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ agentId: 'cluster-limited', displayName: 'limited', channels: ['sms'] }),
    });
    const body = (await res.json()) as { securityToken: string; channels: { sms: { address: string } } };
    assert.equal(res.status, 201, JSON.stringify(body));
    const limited = { actionsPerMinute: LIMIT, actionsPerHour: null, actionsPerDay: null, spendPerDay: null, spendPerMonth: null };
    assert.equal((await fetch(`${gateways[1]!.url}/admin/api/agents/cluster-limited/limits`, { method: 'PUT', headers: auth, body: JSON.stringify({ limits: limited }) })).status, 200);
    limitedAgent = { token: body.securityToken, address: body.channels.sms.address };
  });

  after(async () => {
    await Promise.all([...gateways, ...nodes].map((p) => p.kill('SIGKILL')));
    await simulator?.kill('SIGKILL');
    await Promise.all(receivers.map((r) => r.close()));
    await nats?.stop();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * Signed webhooks (6 workers) and REST sends (3 workers) through `targets` for `loadMs`, with
   * `disrupt` run `disruptAfterMs` into it; what was acknowledged, and every request's outcome.
   */
  const runLoad = async (targets: readonly { url: string }[], loadMs: number, disruptAfterMs: number, disrupt: () => Promise<void>) => {
    const runId = randomBytes(4).toString('hex');
    const ackedInbound = new Set<string>();
    const ackedSends = new Map<string, string>(); // messageId -> externalId
    const outcomes: Outcome[] = [];
    let sequence = 0;
    const started = Date.now();
    const inboundLoop = async (worker: number) => {
      while (Date.now() - started < loadMs) {
        const agent = sequence++ % AGENTS;
        const sid = `SM${runId}${sequence.toString(16).padStart(24, '0')}`;
        const { path, init } = signedSms(agent, sid);
        const res = await fetch(`${targets[worker % targets.length]!.url}${path}`, { ...init, signal: AbortSignal.timeout(30_000) }).catch(() => undefined);
        await res?.arrayBuffer();
        if (res?.status === 200) ackedInbound.add(sid);
        outcomes.push({ agent, ok: res?.status === 200 });
      }
    };
    const sendLoop = async (worker: number) => {
      let n = 0;
      while (Date.now() - started < loadMs) {
        const agent = (worker + n++) % AGENTS;
        const res = await fetch(`${targets[(worker + n) % targets.length]!.url}/api/v1/send-message`, {
          method: 'POST',
          headers: { authorization: `Bearer ${agents[agent]!.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ channel: 'sms', to: CUSTOMER, body: `send ${worker}/${n}` }),
          signal: AbortSignal.timeout(30_000),
        }).catch(() => undefined);
        const body = res ? ((await res.json().catch(() => ({}))) as { messageId?: string; externalId?: string }) : {};
        if (res?.status === 200) ackedSends.set(body.messageId!, body.externalId!);
        outcomes.push({ agent, ok: res?.status === 200 });
      }
    };
    const disruption = (async () => {
      await sleep(disruptAfterMs);
      await disrupt();
    })();
    await Promise.all([...Array.from({ length: 6 }, (_, w) => inboundLoop(w)), ...Array.from({ length: 3 }, (_, w) => sendLoop(w)), disruption]);
    assert.ok(ackedInbound.size > 50, `only ${ackedInbound.size} webhooks were acknowledged`);
    assert.ok(ackedSends.size > 10, `only ${ackedSends.size} sends were acknowledged`);
    return { ackedInbound, ackedSends, outcomes };
  };

  /**
   * Every acknowledged webhook reaches its agent's callback. Delivery is at least once: an event a
   * killed node posted but had not recorded is posted again by another node, with the same webhook-id,
   * so the agent (any Standard Webhooks consumer) drops the repeat: once per message. Returns the
   * number of repeats.
   */
  const assertDelivered = async (ackedInbound: ReadonlySet<string>): Promise<number> => {
    const deadline = Date.now() + 30_000;
    const arrivals = () => receivers.flatMap((r) => r.events.filter((e) => e.event.type === 'message.inbound' && ackedInbound.has(String(e.event.data.externalId))));
    const delivered = () => new Set(arrivals().map((e) => String(e.event.data.externalId)));
    while (delivered().size < ackedInbound.size && Date.now() < deadline) await sleep(200);
    const seen = delivered();
    const missing = [...ackedInbound].filter((sid) => !seen.has(sid));
    assert.deepEqual(missing, [], `${missing.length} acknowledged webhooks never reached the agent`);
    const webhookIds = new Map<string, Set<string>>();
    for (const { event, headers } of arrivals()) {
      const sid = String(event.data.externalId);
      webhookIds.set(sid, (webhookIds.get(sid) ?? new Set()).add(headers['webhook-id']!));
    }
    const twice = [...webhookIds].filter(([, ids]) => ids.size > 1);
    assert.deepEqual(twice, [], 'a message reached the agent twice under different webhook-ids');
    assert.equal(receivers.reduce((n, r) => n + r.rejected, 0), 0, 'a callback signature did not verify');
    return arrivals().length - seen.size;
  };

  /** Every acknowledged send reached the provider. */
  const assertAtProvider = async (ackedSends: ReadonlyMap<string, string>) => {
    const res = await fetch(`${simulatorUrl()}/_sim/messages?provider=twilio`);
    const atProvider = new Set(((await res.json()) as { messages: { id: string }[] }).messages.map((m) => m.id));
    const lost = [...ackedSends.values()].filter((sid) => !atProvider.has(sid));
    assert.deepEqual(lost, [], 'an acknowledged send never reached the provider');
  };

  /**
   * Served again: from `since`, each agent is sent a new signed webhook (3 s time-out each) until one is
   * acknowledged, through `targets` in turn; the longest wait over the agents. Acknowledged ids join
   * `acked`, so they are checked for delivery too.
   */
  const probeServed = async (targets: readonly { url: string }[], since: number, acked: Set<string>): Promise<number> => {
    const waits = await Promise.all(
      agents.map(async (_, agent) => {
        for (let attempt = 0; Date.now() - since < 20_000; attempt++) {
          const sid = `SM${randomBytes(16).toString('hex')}`;
          const { path, init } = signedSms(agent, sid);
          const res = await fetch(`${targets[attempt % targets.length]!.url}${path}`, { ...init, signal: AbortSignal.timeout(3000) }).catch(() => undefined);
          await res?.arrayBuffer();
          if (res?.status === 200) {
            acked.add(sid);
            return Date.now() - since;
          }
          await sleep(100);
        }
        assert.fail(`agent ${agent} was not served again within 20 s`);
      }),
    );
    return Math.max(...waits);
  };

  it('runtime nodes answer liveness and readiness probes on HEALTH_PORT, and between them serve every partition once', async () => {
    for (const url of probeUrls) {
      const ready = await fetch(`${url}/health/ready`);
      const readiness = (await ready.json()) as { status: string; checks: Record<string, string> };
      assert.equal(ready.status, 200, JSON.stringify(readiness));
      assert.equal(readiness.checks.database, 'ok');
      assert.equal(readiness.checks.nats, 'ok');
    }
    // Partitions move while the third node joins; within a few lease periods each is on one node.
    const all = Array.from({ length: 16 }, (_, i) => i);
    let served: number[] = [];
    for (const deadline = Date.now() + 10 * LEASE_TTL_MS; Date.now() < deadline; await sleep(100)) {
      const lives = await Promise.all(probeUrls.map(async (url) => (await (await fetch(`${url}/health`)).json()) as { role: string; partitions: number[] }));
      assert.ok(lives.every((l) => l.role === 'runtime'));
      served = lives.flatMap((l) => l.partitions).sort((a, b) => a - b);
      if (served.join() === all.join()) break;
    }
    assert.deepEqual(served, all, 'each of the 16 partitions is served by exactly one node');
    const unknown = await fetch(`${probeUrls[0]}/api/v1/send-message`, { method: 'POST' });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { code: string }).code, 'NOT_FOUND');
    assert.equal((await fetch(`${probeUrls[0]}/health`, { method: 'POST' })).status, 405);
  });

  it('kill -9 of a runtime node under webhooks and sends through both gateways: nothing acknowledged lost, nothing delivered twice, its agents served again within 5 s, never by two nodes', async () => {
    // 3 × LIMIT sends of the limited agent at once through both gateways, right as a node dies: one
    // actor admits at most LIMIT wherever it runs (two actors for the agent would each admit LIMIT).
    let burst: Promise<number[]> = Promise.resolve([]);
    let served: Promise<number> = Promise.resolve(Infinity);
    const probed = new Set<string>();
    const { ackedInbound, ackedSends, outcomes } = await runLoad(gateways, 9000, 3000, async () => {
      await nodes[0]!.kill('SIGKILL');
      // Calls refused while a partition moves are retried by the gateway, so they wait, not fail; the
      // requests the dead node held at the kill time out, and were not acknowledged.
      served = probeServed(gateways, Date.now(), probed);
      burst = Promise.all(
        Array.from({ length: 3 * LIMIT }, (_, i) =>
          fetch(`${gateways[i % 2]!.url}/api/v1/send-message`, {
            method: 'POST',
            headers: { authorization: `Bearer ${limitedAgent.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ channel: 'sms', to: CUSTOMER, body: `limited ${i}` }),
            signal: AbortSignal.timeout(30_000),
          }).then(
            (r) => r.arrayBuffer().then(() => r.status),
            () => 0,
          ),
        ),
      );
    });
    const statuses = await burst;
    const fromLimited = await fetch(`${simulatorUrl()}/_sim/messages?provider=twilio`).then(
      async (r) => ((await r.json()) as { messages: { from: string }[] }).messages.filter((m) => m.from === limitedAgent.address).length,
    );
    assert.ok(statuses.filter((s) => s === 200).length <= LIMIT, `the limited agent had ${statuses.filter((s) => s === 200).length} sends accepted: ${statuses.join(',')}`);
    assert.ok(fromLimited <= LIMIT, `the limited agent sent ${fromLimited} messages past its limit of ${LIMIT}`);
    assert.ok(statuses.filter((s) => s === 429).length >= 2 * LIMIT, `the limit refused too few: ${statuses.join(',')}`);
    const gap = await served;
    const repeats = await assertDelivered(new Set([...ackedInbound, ...probed]));
    await assertAtProvider(ackedSends);
    assert.ok(gap < 5000, `an agent was served again only ${gap} ms after the kill`);
    console.log(
      `cluster, runtime node killed: ${ackedInbound.size} webhooks and ${ackedSends.size} sends acknowledged, ${outcomes.filter((o) => !o.ok).length} refused or timed out; ` +
        `${repeats} repeated deliveries (same webhook-id); every agent served again ≤ ${gap} ms after the kill`,
    );
  });

  it('a live MCP session on one gateway gets deliveries from the runtime nodes; when that gateway is killed the client reconnects to the other and nothing acknowledged is lost', async () => {
    const agent = agents[0]!;
    const [gw1, gw2] = gateways;
    const first = await connectMcp(gw2!.url, 'streamable', agent.token, agent.agentId);
    const sid = `SM${randomBytes(12).toString('hex')}`;
    const { path, init } = signedSms(0, sid);
    const res = await fetch(`${gw1!.url}${path}`, init);
    assert.equal(res.status, 200);
    await first.next('switchboard.inbound', (data) => data.externalId === sid, 10_000);
    await gw2!.kill('SIGKILL');
    await first.close().catch(() => undefined);
    const second = await connectMcp(gw1!.url, 'streamable', agent.token, agent.agentId);
    try {
      const next = `SM${randomBytes(12).toString('hex')}`;
      const again = signedSms(0, next);
      const answered = await fetch(`${gw1!.url}${again.path}`, again.init);
      assert.equal(answered.status, 200);
      await second.next('switchboard.inbound', (data) => data.externalId === next, 10_000);
    } finally {
      await second.close();
    }
  });
  it('nats-server restarted mid-load: the cluster recovers by itself and loses nothing it acknowledged', async () => {
    const live = gateways.filter((g) => g.child.exitCode === null && g.child.signalCode === null);
    let served: Promise<number> = Promise.resolve(Infinity);
    const probed = new Set<string>();
    const { ackedInbound, ackedSends, outcomes } = await runLoad(live, 12_000, 3000, async () => {
      await nats.stop({ keepStore: true });
      await sleep(500);
      nats = await startNatsServer({ port: nats.port, storeDir: nats.storeDir });
      served = probeServed(live, Date.now(), probed);
    });
    const gap = await served;
    await assertDelivered(new Set([...ackedInbound, ...probed]));
    await assertAtProvider(ackedSends);
    assert.ok(gap < 10_000, `an agent was served again only ${gap} ms after nats-server came back`);
    console.log(
      `cluster, nats-server restarted: ${ackedInbound.size} webhooks and ${ackedSends.size} sends acknowledged, ${outcomes.filter((o) => !o.ok).length} refused or timed out; ` +
        `every agent served again ≤ ${gap} ms after nats-server came back`,
    );
  });

  it('kill -9 of a runtime node during provider calls: every send it had stored is finished by another node, once at the provider', async () => {
    const live = gateways.filter((g) => g.child.exitCode === null && g.child.signalCode === null);
    const victim = nodes.find((n) => n.child.exitCode === null && n.child.signalCode === null && nodes.filter((m) => m.child.exitCode === null).length > 1)!;
    const runId = randomBytes(4).toString('hex');
    // The provider answers each send a second late; it stores the message when it answers, as Twilio would
    // have by the time another node looks. The node dies with its calls still waiting for an answer.
    const fault = await fetch(`${simulatorUrl()}/_sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'twilio', method: 'POST', pathIncludes: '/Messages.json', latencyMs: 1000 }),
    });
    assert.equal(fault.status, 201);
    try {
      const sends = agents.map((agent, i) =>
        fetch(`${live[i % live.length]!.url}/api/v1/send-message`, {
          method: 'POST',
          headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ channel: 'sms', to: CUSTOMER, body: `in flight ${runId} ${i}` }),
          // A send the dead node held is not answered; it is finished all the same.
          signal: AbortSignal.timeout(8000),
        }).then(
          (r) => r.arrayBuffer().then(() => r.status),
          () => 0,
        ),
      );
      await sleep(400);
      await victim.kill('SIGKILL');
      const statuses = await Promise.all(sends);
      const unanswered = statuses.filter((s) => s !== 200).length;
      assert.ok(unanswered > 0, `every send was answered (${statuses.join(',')}): none was in flight on the killed node`);
      // Every send was stored before its provider call, so each ends with its provider's id, exactly once.
      const auth = { authorization: `Bearer ${ORCHESTRATOR}` };
      let ours: { body: string; externalId: string | null; status: string }[] = [];
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(250)) {
        const log = (await (await fetch(`${live[0]!.url}/admin/api/messages?direction=outbound&limit=500`, { headers: auth })).json()) as { messages: typeof ours };
        ours = log.messages.filter((m) => m.body.startsWith(`in flight ${runId} `));
        if (ours.length === agents.length && ours.every((m) => m.externalId !== null)) break;
      }
      assert.equal(ours.length, agents.length, 'a send was not stored');
      assert.deepEqual(ours.filter((m) => m.externalId === null).map((m) => m.body), [], 'a stored send was never finished');
      const atProvider = ((await (await fetch(`${simulatorUrl()}/_sim/messages?provider=twilio`)).json()) as { messages: { id: string; body: string }[] }).messages.filter((m) =>
        m.body.startsWith(`in flight ${runId} `),
      );
      assert.equal(atProvider.length, agents.length, `the provider got ${atProvider.length} messages for ${agents.length} sends`);
      assert.deepEqual(new Set(atProvider.map((m) => m.id)), new Set(ours.map((m) => m.externalId)));
      console.log(`cluster, runtime node killed during provider calls: ${unanswered} of ${agents.length} sends unanswered at the kill, every one finished by another node, each once at the provider`);
    } finally {
      await fetch(`${simulatorUrl()}/_sim/faults`, { method: 'DELETE' });
    }
  });
});
