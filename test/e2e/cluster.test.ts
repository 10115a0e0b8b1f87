import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import twilio from 'twilio';
import { openStore, partitionOf, type Store } from '@switchboard/runtime/internal';
import type { NatsConnection } from '@nats-io/transport-node';
import { createTestDatabase, eventually, eventuallyPasses, freePort, startSecureNats, steadily, type SecureNatsCluster, type TestDatabase } from '@switchboard/runtime/testing';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { startClusterProcess as startProcess, type ClusterProcess } from '../helpers/cluster-process.js';
import { connectMcp } from '../helpers/mcp-client.js';

const ORCHESTRATOR = `sb_orch_${randomBytes(16).toString('hex')}`;
const LEASE_TTL_MS = 1500;
const AGENTS = 8;
const CUSTOMER = '+14155550142';
const LIMIT = 10;
const PARTITIONS = 16;
/** The work each disruption runs under: a fixed amount, waited for, never a rate (throughput is the bench's). */
const WEBHOOKS = 96;
const SENDS = 24;
/** Generous for a loaded 2-core runner: a send held by a killed node is answered only after SEND_TIMEOUT_MS plus a lease TTL. */
const WORK_DEADLINE_MS = 150_000;
const SERVED_AGAIN_DEADLINE_MS = 60_000;
/** Probes that must all succeed after an agent's first, over two lease TTLs. */
const STEADY_PROBES = 8;
/** Per test: processes, a fault and a fixed amount of work on a loaded machine. */
const HEAVY = { timeout: 300_000 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The suite, start-up included, outlives the runner's per-test default on a loaded machine; each test has its own limit.
describe('cluster mode: 2 gateways and 3 runtime nodes on NATS and PostgreSQL, the simulator in its own process', { timeout: 20 * 60_000 }, () => {
  let nats: SecureNatsCluster;
  let spy: NatsConnection;
  const onTheBus: string[] = [];
  let database: TestDatabase;
  let dataDir: string;
  let store: Store;
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
    Object.assign(await startProcess(name, ['gateway/src/cli.ts', 'gateway', '--port', String(port)], { ...env, ...nats.settings('gateway'), NODE_ID: name }, /API:\s+http/), {
      url: `http://127.0.0.1:${port}`,
    });
  const probeUrls: string[] = [];
  const startNode = async (name: string) => {
    const port = await freePort();
    probeUrls.push(`http://127.0.0.1:${port}`);
    return startProcess(name, ['gateway/src/cli.ts', 'runtime'], { ...env, ...nats.settings('runtime'), NODE_ID: name, HEALTH_PORT: String(port) }, /runtime node \S+ is running/);
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
    // The shipped deploy/nats configuration: TLS with client certificates, a NATS user per role.
    nats = await startSecureNats();
    // Everything that crosses the bus while agents are provisioned and their callback URLs set, read with every permission.
    spy = await nats.connect('admin');
    spy.subscribe('>', { callback: (_err, msg) => void onTheBus.push(`${msg.subject} ${msg.headers ?? ''} ${msg.string()}`) });
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
      POOL_PHONE_NUMBERS: Array.from({ length: AGENTS + 2 }, (_, i) => `+1202555${String(100 + i).padStart(4, '0')}`).join(','),
      CLUSTER_PARTITIONS: String(PARTITIONS),
      CLUSTER_LEASE_TTL_MS: String(LEASE_TTL_MS),
      CALLBACK_RETRY_SCHEDULE: '0,100,200,400,800,1600',
      // A dead node's sends are finished a send time-out plus a lease TTL after they were stored; the
      // provider answers the in-flight test's sends 3 s late, well inside it.
      SEND_TIMEOUT_MS: '6000',
    };
    for (const name of ['rt-1', 'rt-2', 'rt-3']) nodes.push(await startNode(name));
    store = await openStore({ dataDir, databaseUrl: database.url });
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
    // Per day, so that a burst retried across a minute's end still counts against one window.
    const limited = { actionsPerMinute: null, actionsPerHour: null, actionsPerDay: LIMIT, spendPerDay: null, spendPerMonth: null };
    assert.equal((await fetch(`${gateways[1]!.url}/admin/api/agents/cluster-limited/limits`, { method: 'PUT', headers: auth, body: JSON.stringify({ limits: limited }) })).status, 200);
    limitedAgent = { token: body.securityToken, address: body.channels.sms.address };
  });

  after(async () => {
    await Promise.all([...gateways, ...nodes].map((p) => p.kill('SIGKILL')));
    await simulator?.kill('SIGKILL');
    await Promise.all(receivers.map((r) => r.close()));
    await store?.close();
    await nats?.stop();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * A fixed amount of work through `targets`: WEBHOOKS signed webhooks (6 workers) and SENDS REST sends
   * (3 workers), spread over the agents, with `disrupt` started once a quarter of it is done. Each item
   * is retried until acknowledged, as a provider retries a webhook (same MessageSid) and a client a send
   * (same Idempotency-Key), within WORK_DEADLINE_MS: the test waits for the work, whatever the machine's
   * speed, and fails only when an item is never acknowledged.
   */
  const runWork = async (targets: readonly { url: string }[], disrupt: () => Promise<void>) => {
    const runId = randomBytes(4).toString('hex');
    const ackedInbound = new Set<string>();
    const ackedSends = new Map<string, string>(); // messageId -> externalId
    const sendBodies: string[] = [];
    let retries = 0;
    let done = 0;
    let disruption: Promise<void> | undefined;
    const deadline = Date.now() + WORK_DEADLINE_MS;
    const finished = () => {
      done++;
      if (done !== Math.floor((WEBHOOKS + SENDS) / 4)) return;
      disruption = disrupt();
      disruption.catch(() => undefined); // awaited, and so reported, once the work is done
    };
    /** Retries `attempt` until it answers true or the deadline passes; what the last attempt got, when it never did. */
    const untilAcknowledged = async (attempt: (n: number) => Promise<boolean | string>): Promise<string | undefined> => {
      let last: boolean | string = false;
      let n = 0;
      const acknowledged = await eventually(
        async () => {
          last = await attempt(n++);
          if (last === true) return true;
          retries++;
          return false;
        },
        { timeoutMs: Math.max(0, deadline - Date.now()), intervalMs: 250 },
      ).catch(() => false);
      return acknowledged ? undefined : String(last);
    };
    const webhookQueue = Array.from({ length: WEBHOOKS }, (_, i) => ({ agent: i % AGENTS, sid: `SM${runId}${i.toString(16).padStart(24, '0')}` }));
    const sendQueue = Array.from({ length: SENDS }, (_, i) => ({ agent: i % AGENTS, key: `${runId}-send-${i}`, body: `send ${runId} ${i}` }));
    const failures: string[] = [];
    const inboundWorker = async (worker: number) => {
      for (let item = webhookQueue.shift(); item; item = webhookQueue.shift()) {
        const { agent, sid } = item;
        const { path, init } = signedSms(agent, sid);
        const failed = await untilAcknowledged(async (n) => {
          const res = await fetch(`${targets[(worker + n) % targets.length]!.url}${path}`, { ...init, signal: AbortSignal.timeout(30_000) }).catch((err: Error) => err);
          if (res instanceof Error) return res.name;
          await res.arrayBuffer();
          return res.status === 200 || `HTTP ${res.status}`;
        });
        if (failed) failures.push(`webhook ${sid}: ${failed}`);
        else ackedInbound.add(sid);
        finished();
      }
    };
    const sendWorker = async (worker: number) => {
      for (let item = sendQueue.shift(); item; item = sendQueue.shift()) {
        const { agent, key, body } = item;
        sendBodies.push(body);
        const failed = await untilAcknowledged(async (n) => {
          const res = await fetch(`${targets[(worker + n) % targets.length]!.url}/api/v1/send-message`, {
            method: 'POST',
            headers: { authorization: `Bearer ${agents[agent]!.token}`, 'content-type': 'application/json', 'idempotency-key': key },
            body: JSON.stringify({ channel: 'sms', to: CUSTOMER, body }),
            signal: AbortSignal.timeout(45_000),
          }).catch((err: Error) => err);
          if (res instanceof Error) return res.name;
          const answer = (await res.json().catch(() => ({}))) as { messageId?: string; externalId?: string; code?: string };
          if (res.status !== 200) return `HTTP ${res.status} ${answer.code ?? ''}`;
          ackedSends.set(answer.messageId!, answer.externalId!);
          return true;
        });
        if (failed) failures.push(`send ${key}: ${failed}`);
        finished();
      }
    };
    await Promise.all([...Array.from({ length: 6 }, (_, w) => inboundWorker(w)), ...Array.from({ length: 3 }, (_, w) => sendWorker(w))]);
    await disruption;
    assert.deepEqual(failures, [], `work not acknowledged within ${WORK_DEADLINE_MS / 1000} s of retries`);
    assert.equal(ackedInbound.size, WEBHOOKS);
    assert.equal(ackedSends.size, SENDS, 'each send acknowledged under one message id, however often it was retried');
    return { ackedInbound, ackedSends, sendBodies, retries };
  };

  /** What the nodes' probes say and what every process logged last, for a failure's message. */
  const diagnose = async () => {
    const health = await Promise.all(probeUrls.map((u) => fetch(`${u}/health/ready`).then((r) => r.text(), (e: Error) => e.message)));
    return `\nnodes: ${health.join('\n')}\n${[...nodes, ...gateways].map((p) => `--- ${p.name}\n${p.output().slice(-3000)}`).join('\n')}`;
  };

  /**
   * Every acknowledged webhook reaches its agent's callback. Delivery is at least once: an event a
   * killed node posted but had not recorded is posted again by another node, with the same webhook-id,
   * so the agent (any Standard Webhooks consumer) drops the repeat: once per message. Returns the
   * number of repeats.
   */
  const assertDelivered = async (ackedInbound: ReadonlySet<string>): Promise<number> => {
    const arrivals = () => receivers.flatMap((r) => r.events.filter((e) => e.event.type === 'message.inbound' && ackedInbound.has(String(e.event.data.externalId))));
    const delivered = () => new Set(arrivals().map((e) => String(e.event.data.externalId)));
    // Given up on after 30 s, the missing ones are named below with where they stand.
    await eventually(() => delivered().size >= ackedInbound.size, { timeoutMs: 30_000, intervalMs: 200 }).catch(() => undefined);
    const seen = delivered();
    const missing = [...ackedInbound].filter((sid) => !seen.has(sid));
    if (missing.length > 0) {
      // Where the missing ones stand in the store (delivery pending, done, dead-lettered) and what the processes logged.
      const rows = await store.db.query('SELECT agent_id, external_id, delivery, updated_at FROM messages WHERE external_id IN (' + missing.map(() => '?').join(',') + ')', missing);
      assert.fail(`${missing.length} acknowledged webhooks never reached the agent: ${JSON.stringify(rows)}${await diagnose()}`);
    }
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

  /** Every acknowledged send reached the provider, and each send (by its body) exactly once. */
  const assertAtProvider = async (ackedSends: ReadonlyMap<string, string>, sendBodies: readonly string[] = []) => {
    const res = await fetch(`${simulatorUrl()}/_sim/messages?provider=twilio`);
    const messages = ((await res.json()) as { messages: { id: string; body: string }[] }).messages;
    const atProvider = new Set(messages.map((m) => m.id));
    const lost = [...ackedSends.values()].filter((sid) => !atProvider.has(sid));
    assert.deepEqual(lost, [], 'an acknowledged send never reached the provider');
    const twice = sendBodies.filter((body) => messages.filter((m) => m.body === body).length !== 1);
    assert.deepEqual(twice, [], 'a send reached the provider other than once');
  };

  /**
   * Served again, steadily: from `since`, each agent is sent new signed webhooks through `targets` in
   * turn until one is acknowledged, then STEADY_PROBES more over at least a lease TTL, every one of which
   * must be acknowledged too (an agent that fails after it was served again is not served steadily).
   * Returns the longest wait for a first acknowledgement; acknowledged ids join `acked`, so they are
   * checked for delivery too.
   */
  const servedSteadily = async (targets: readonly { url: string }[], since: number, acked: Set<string>): Promise<number> => {
    const probe = async (agent: number, attempt: number) => {
      const sid = `SM${randomBytes(16).toString('hex')}`;
      const { path, init } = signedSms(agent, sid);
      const res = await fetch(`${targets[attempt % targets.length]!.url}${path}`, { ...init, signal: AbortSignal.timeout(15_000) }).catch((err: Error) => err);
      if (res instanceof Error) return `${res.name} from ${targets[attempt % targets.length]!.url}`;
      const body = await res.text();
      if (res.status === 200) acked.add(sid);
      return res.status === 200 ? 200 : `${res.status} ${body.slice(0, 200)} from ${targets[attempt % targets.length]!.url}`;
    };
    const waits = await Promise.all(
      agents.map(async (_, agent) => {
        let attempt = 0;
        let got: number | string = 0;
        const served = async () => (got = await probe(agent, attempt++)) === 200;
        const failed = async (error: Error) => assert.fail(`${error.message}${await diagnose()}`);
        await eventually(served, {
          timeoutMs: Math.max(0, SERVED_AGAIN_DEADLINE_MS - (Date.now() - since)),
          intervalMs: 100,
          message: () => `agent ${agent} (${agents[agent]!.agentId}, partition ${partitionOf(agents[agent]!.agentId, PARTITIONS)}) served again within ${SERVED_AGAIN_DEADLINE_MS / 1000} s: the last probe got ${got}`,
        }).catch(failed);
        const wait = Date.now() - since;
        await steadily(served, {
          forMs: STEADY_PROBES * (LEASE_TTL_MS / 4),
          intervalMs: LEASE_TTL_MS / 4,
          message: () => `agent ${agent} was served again ${wait} ms after the fault, then answered ${got}`,
        }).catch(failed);
        return wait;
      }),
    );
    return Math.max(...waits);
  };

  it('no agent token or signing secret crosses the bus in clear: not at provisioning, not from setCallbackUrl', async () => {
    const agent = agents[0]!;
    const res = await fetch(`${gateways[1]!.url}/api/v1/callback-url`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ callbackUrl: receivers[0]!.url }),
    });
    const body = (await res.json()) as { signingSecret: string };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.signingSecret, agent.secret, 'the signing secret changed with the URL');
    await spy.flush();
    await spy.close();
    assert.ok(onTheBus.filter((m) => /^sb\.agent\.\d+\.provision /.test(m)).length >= AGENTS, 'the spy saw no provisioning');
    assert.ok(onTheBus.some((m) => /^sb\.agent\.\d+\.setCallbackUrl /.test(m)), 'the spy saw no setCallbackUrl');
    const secrets = [...agents.flatMap((a) => [a.token, a.secret, a.secret.slice('whsec_'.length)]), limitedAgent.token];
    assert.deepEqual(onTheBus.filter((m) => secrets.some((s) => m.includes(s))), [], 'a token or signing secret crossed the bus in clear');
  });

  it('a token one gateway has checked stops working there as soon as another process revokes it: a deprovisioned agent, a replaced team token', async () => {
    const auth = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
    const usage = async (url: string, token: string) => (await fetch(`${url}/api/v1/usage`, { headers: auth(token) })).status;
    const provision = async () => {
      const res = await fetch(`${gateways[0]!.url}/api/v1/provision`, { method: 'POST', headers: auth(ORCHESTRATOR), body: JSON.stringify({ agentId: 'cluster-revoked', displayName: 'revoked', channels: ['sms'] }) });
      assert.equal(res.status, 201);
      return ((await res.json()) as { securityToken: string }).securityToken;
    };
    // Kept for 5 s by each gateway unless revoked: refused within 1 s proves the revocation was heard.
    const refusedWithinASecond = (url: string, token: string, what: string) => eventually(async () => (await usage(url, token)) === 401, { timeoutMs: 1_000, intervalMs: 50, message: () => what });
    const first = await provision();
    assert.equal(await usage(gateways[1]!.url, first), 200, 'the agent token works at the other gateway (and is kept there)');
    const gone = await fetch(`${gateways[0]!.url}/api/v1/deprovision`, { method: 'POST', headers: auth(ORCHESTRATOR), body: JSON.stringify({ agentId: 'cluster-revoked' }) });
    assert.equal(gone.status, 200);
    await refusedWithinASecond(gateways[1]!.url, first, 'the deprovisioned agent\'s token refused at the other gateway within 1 s');
    const second = await provision();
    assert.equal(await usage(gateways[1]!.url, first), 401, 'the earlier agent\'s token does not act for the later one under the same id');
    assert.equal(await usage(gateways[1]!.url, second), 200);

    const regenerate = async () => {
      const res = await fetch(`${gateways[0]!.url}/admin/api/regenerate-token`, { method: 'POST', headers: auth(ORCHESTRATOR) });
      assert.equal(res.status, 200);
      return ((await res.json()) as { token: string }).token;
    };
    const team = await regenerate();
    assert.equal(await usage(gateways[1]!.url, team), 200, 'the team token works at the other gateway (and is kept there)');
    const next = await regenerate();
    await refusedWithinASecond(gateways[1]!.url, team, 'the replaced team token refused at the other gateway within 1 s');
    assert.equal(await usage(gateways[1]!.url, next), 200);
  });

  it('runtime nodes answer liveness and readiness probes on HEALTH_PORT, and between them serve every partition once', async () => {
    for (const url of probeUrls) {
      const ready = await fetch(`${url}/health/ready`);
      const readiness = (await ready.json()) as { status: string; checks: Record<string, string> };
      assert.equal(ready.status, 200, JSON.stringify(readiness));
      assert.equal(readiness.checks.database, 'ok');
      assert.equal(readiness.checks.nats, 'ok');
    }
    // Partitions move while the third node joins; within a few lease periods each is on one node.
    const all = Array.from({ length: PARTITIONS }, (_, i) => i);
    await eventuallyPasses(
      async () => {
        const lives = await Promise.all(probeUrls.map(async (url) => (await (await fetch(`${url}/health`)).json()) as { role: string; partitions: number[] }));
        assert.deepEqual(lives.map((l) => l.role), probeUrls.map(() => 'runtime'));
        assert.deepEqual(lives.flatMap((l) => l.partitions).sort((a, b) => a - b), all, 'each of the partitions is served by exactly one node');
      },
      { timeoutMs: 60_000, intervalMs: 100, message: 'each of the partitions served by exactly one node' },
    );
    const unknown = await fetch(`${probeUrls[0]}/api/v1/send-message`, { method: 'POST' });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { code: string }).code, 'NOT_FOUND');
    assert.equal((await fetch(`${probeUrls[0]}/health`, { method: 'POST' })).status, 405);
  });

  it('kill -9 of a runtime node under webhooks and sends through both gateways: nothing acknowledged lost, nothing delivered twice, its agents served again steadily, never by two nodes', HEAVY, async () => {
    // 3 × LIMIT sends of the limited agent at once through both gateways, right as a node dies: one
    // actor admits at most LIMIT wherever it runs (two actors for the agent would each admit LIMIT).
    // Each is retried (same Idempotency-Key) while the agent moves, until admitted or refused by the limit.
    let burst: Promise<number[]> = Promise.resolve([]);
    let served: Promise<number> = Promise.resolve(Infinity);
    const probed = new Set<string>();
    const burstRun = randomBytes(4).toString('hex');
    const limitedSend = async (i: number) => {
      let status = 0;
      await eventually(
        async () => {
          status = await fetch(`${gateways[i % 2]!.url}/api/v1/send-message`, {
            method: 'POST',
            headers: { authorization: `Bearer ${limitedAgent.token}`, 'content-type': 'application/json', 'idempotency-key': `limited-${burstRun}-${i}` },
            body: JSON.stringify({ channel: 'sms', to: CUSTOMER, body: `limited ${i}` }),
            signal: AbortSignal.timeout(45_000),
          }).then(
            (r) => r.arrayBuffer().then(() => r.status),
            () => 0,
          );
          return status === 200 || status === 429;
        },
        { timeoutMs: WORK_DEADLINE_MS, intervalMs: 250, message: () => `limited send ${i} admitted or refused by the limit (last ${status})` },
      );
      return status;
    };
    const { ackedInbound, ackedSends, sendBodies, retries } = await runWork(gateways, async () => {
      await nodes[0]!.kill('SIGKILL');
      // Calls refused while a partition moves are retried by the gateway, so they wait, not fail; the
      // requests the dead node held at the kill time out, and are retried by the test as a client would.
      served = servedSteadily(gateways, Date.now(), probed);
      burst = Promise.all(Array.from({ length: 3 * LIMIT }, (_, i) => limitedSend(i)));
    });
    const statuses = await burst;
    const fromLimited = await fetch(`${simulatorUrl()}/_sim/messages?provider=twilio`).then(
      async (r) => ((await r.json()) as { messages: { from: string }[] }).messages.filter((m) => m.from === limitedAgent.address).length,
    );
    assert.equal(statuses.filter((s) => s === 200).length, LIMIT, `the limited agent had ${statuses.filter((s) => s === 200).length} sends accepted: ${statuses.join(',')}`);
    assert.equal(statuses.filter((s) => s === 429).length, 2 * LIMIT, `the limit refused the rest: ${statuses.join(',')}`);
    assert.ok(fromLimited <= LIMIT, `the limited agent sent ${fromLimited} messages past its limit of ${LIMIT}`);
    const gap = await served;
    // The nodes hear the server's disconnect advisory (NATS_SYSTEM_USER): a survivor ended rt-1's leases at once, not at their expiry.
    assert.ok(nodes.slice(1).some((n) => n.output().includes('node rt-1 lost its NATS connection')), `no survivor took rt-1's partitions on its disconnect:\n${nodes.slice(1).map((n) => n.output().slice(-1500)).join('\n')}`);
    const repeats = await assertDelivered(new Set([...ackedInbound, ...probed]));
    await assertAtProvider(ackedSends, sendBodies);
    console.log(
      `cluster, runtime node killed: ${ackedInbound.size} webhooks and ${ackedSends.size} sends acknowledged after ${retries} retried attempts; ` +
        `${repeats} repeated deliveries (same webhook-id); every agent served again ≤ ${gap} ms after the kill, and steadily after`,
    );
  });

  it('a live MCP session on one gateway gets deliveries from the runtime nodes; when that gateway is killed the client reconnects to the other and nothing acknowledged is lost', HEAVY, async () => {
    const agent = agents[0]!;
    const [gw1, gw2] = gateways;
    const first = await connectMcp(gw2!.url, 'streamable', agent.token, agent.agentId);
    // Live once its listening stream is open (announced by switchboard.waiting); until then a message goes to the callback URL.
    await first.next('switchboard.waiting');
    const sid = `SM${randomBytes(12).toString('hex')}`;
    const { path, init } = signedSms(0, sid);
    const res = await fetch(`${gw1!.url}${path}`, init);
    assert.equal(res.status, 200);
    await first.next('switchboard.inbound', (data) => data.externalId === sid, 60_000);
    await gw2!.kill('SIGKILL');
    await first.close().catch(() => undefined);
    const second = await connectMcp(gw1!.url, 'streamable', agent.token, agent.agentId);
    try {
      await second.next('switchboard.waiting');
      const next = `SM${randomBytes(12).toString('hex')}`;
      const again = signedSms(0, next);
      const answered = await fetch(`${gw1!.url}${again.path}`, again.init);
      assert.equal(answered.status, 200);
      await second.next('switchboard.inbound', (data) => data.externalId === next, 60_000);
      // The inbox, read through the surviving gateway, holds both, once each, in order.
      const inbox = await fetch(`${gw1!.url}/api/v1/inbox?after=0&limit=500`, { headers: { authorization: `Bearer ${agent.token}` } });
      assert.equal(inbox.status, 200);
      const { entries } = (await inbox.json()) as { entries: { payload: { externalId?: string } }[] };
      assert.deepEqual(
        entries.map((e) => e.payload.externalId).filter((id) => id === sid || id === next),
        [sid, next],
      );
    } finally {
      await second.close();
    }
  });
  it('nats-server restarted mid-load: the cluster recovers by itself and loses nothing it acknowledged', HEAVY, async () => {
    const live = gateways.filter((g) => g.child.exitCode === null && g.child.signalCode === null);
    let served: Promise<number> = Promise.resolve(Infinity);
    const probed = new Set<string>();
    const { ackedInbound, ackedSends, sendBodies, retries } = await runWork(live, async () => {
      await nats.kill(0, 'SIGTERM');
      await sleep(500);
      await nats.restart(0);
      served = servedSteadily(live, Date.now(), probed);
    });
    const gap = await served;
    await assertDelivered(new Set([...ackedInbound, ...probed]));
    await assertAtProvider(ackedSends, sendBodies);
    console.log(
      `cluster, nats-server restarted: ${ackedInbound.size} webhooks and ${ackedSends.size} sends acknowledged after ${retries} retried attempts; ` +
        `every agent served again ≤ ${gap} ms after nats-server came back, and steadily after`,
    );
  });

  it('kill -9 of a runtime node during provider calls: every send it had stored is finished by another node, once at the provider', HEAVY, async () => {
    const live = gateways.filter((g) => g.child.exitCode === null && g.child.signalCode === null);
    const runId = randomBytes(4).toString('hex');
    // The victim: a live node serving at least one agent (the cluster is steady: the last test waited for it).
    const holders = await Promise.all(
      nodes.map(async (node, i) => {
        if (node.child.exitCode !== null || node.child.signalCode !== null) return [];
        const { partitions } = (await (await fetch(`${probeUrls[i]}/health`)).json()) as { partitions: number[] };
        return agents.filter((a) => partitions.includes(partitionOf(a.agentId, PARTITIONS))).map((a) => a.agentId);
      }),
    );
    const victimIndex = holders.findIndex((held) => held.length > 0);
    assert.ok(victimIndex >= 0 && holders.filter((held) => held.length > 0).length > 1, `the agents are not spread over two live nodes: ${JSON.stringify(holders)}`);
    const victim = nodes[victimIndex]!;
    // The provider answers each send 3 s late; it stores the message when it answers, as Twilio would
    // have by the time another node looks. The node dies with its calls still waiting for an answer.
    const fault = await fetch(`${simulatorUrl()}/_sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'twilio', method: 'POST', pathIncludes: '/Messages.json', latencyMs: 3000 }),
    });
    assert.equal(fault.status, 201);
    try {
      const sends = agents.map((agent, i) =>
        fetch(`${live[i % live.length]!.url}/api/v1/send-message`, {
          method: 'POST',
          headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ channel: 'sms', to: CUSTOMER, body: `in flight ${runId} ${i}` }),
          // A send the dead node held is not answered; it is finished all the same.
          signal: AbortSignal.timeout(20_000),
        }).then(
          (r) => r.arrayBuffer().then(() => r.status),
          () => 0,
        ),
      );
      // The node dies once every send is stored (before its provider call), not after a guessed delay:
      // a send still on its way to the node when it died was never stored, nor acknowledged.
      const stored = async () => (await store.db.query<{ body: string; external_id: string | null }>('SELECT body, external_id FROM messages WHERE body LIKE ?', [`in flight ${runId} %`]));
      let storedCount = 0;
      await eventually(async () => (storedCount = (await stored()).length) >= agents.length, { timeoutMs: 60_000, message: () => `all ${agents.length} sends stored (${storedCount} were)` });
      const victimsAgents = new Set(holders[victimIndex]);
      const agentOf = (body: string) => agents[Number(body.split(' ').at(-1))]!.agentId;
      const inFlight = (await stored()).filter((m) => m.external_id === null && victimsAgents.has(agentOf(m.body))).length;
      await victim.kill('SIGKILL');
      assert.ok(inFlight > 0, "none of the victim's sends was still waiting for the provider at the kill");
      const statuses = await Promise.all(sends);
      const unanswered = statuses.filter((s, i) => s !== 200 && victimsAgents.has(agents[i]!.agentId)).length;
      assert.deepEqual(
        statuses.filter((s, i) => s !== 200 && !victimsAgents.has(agents[i]!.agentId)),
        [],
        `a send to an agent of a surviving node failed: ${statuses.join(',')}`,
      );
      // Every send was stored before its provider call, so each ends with its provider's id, exactly once.
      let ours: { body: string; external_id: string | null }[] = [];
      // Given up on after 60 s, what is unfinished is named below.
      await eventually(async () => (ours = await stored()).every((m) => m.external_id !== null), { timeoutMs: 60_000, intervalMs: 250 }).catch(() => undefined);
      assert.equal(ours.length, agents.length, 'a stored send disappeared');
      assert.deepEqual(ours.filter((m) => m.external_id === null).map((m) => m.body), [], 'a stored send was never finished');
      const atProvider = ((await (await fetch(`${simulatorUrl()}/_sim/messages?provider=twilio`)).json()) as { messages: { id: string; body: string }[] }).messages.filter((m) =>
        m.body.startsWith(`in flight ${runId} `),
      );
      assert.equal(atProvider.length, agents.length, `the provider got ${atProvider.length} messages for ${agents.length} sends`);
      assert.deepEqual(new Set(atProvider.map((m) => m.id)), new Set(ours.map((m) => m.external_id)));
      console.log(
        `cluster, runtime node killed during provider calls: all ${agents.length} sends stored, ${inFlight} of the victim's awaiting the provider at the kill, ` +
          `${unanswered} of the victim's ${victimsAgents.size} agents' sends unanswered; every one finished by another node, each once at the provider`,
      );
    } finally {
      await fetch(`${simulatorUrl()}/_sim/faults`, { method: 'DELETE' });
    }
  });

  it('the shipped NATS permissions refused nothing the gateways and runtime nodes did', () => {
    // Except a gateway's reply to a runtime node's live request that the restarted nats-server no longer knew
    // (allow_responses): the node's request times out, as the delivery it carried is retried.
    assert.deepEqual(nats.violations().filter((l) => !/Publish Violation - User "gateway", Subject "_INBOX_node\./.test(l)), []);
  });
});
