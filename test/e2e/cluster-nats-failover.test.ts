import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import twilio from 'twilio';
import { jetstreamManager } from '@nats-io/jetstream';
import { protocol } from '@switchboard/runtime/internal';
import { createTestDatabase, eventually, freePort, startSecureNats, steadily, type SecureNatsCluster, type TestDatabase } from '@switchboard/runtime/testing';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { startClusterProcess as startProcess, type ClusterProcess } from '../helpers/cluster-process.js';

const ORCHESTRATOR = `sb_orch_${randomBytes(24).toString('base64url')}`;
const AGENTS = 4;
const CUSTOMER = '+14155550142';
/** A fixed amount of work, waited for: never a rate. */
const WEBHOOKS = 60;
/** The NATS server is killed once this many webhooks were acknowledged. */
const KILL_AFTER = 15;
const WORK_DEADLINE_MS = 180_000;
const LEASE_TTL_MS = 2000;
/** After the kill, each agent is served again within this, then steadily. */
const SERVED_AGAIN_DEADLINE_MS = 60_000;
/** Probes each agent must answer once served again, LEASE_TTL_MS / 4 apart: two lease TTLs. */
const STEADY_PROBES = 8;

/**
 * A 3-node NATS cluster as deploy/nats/cluster ships it (TLS, a user per role), Switchboard's streams and
 * KV buckets replicated on all three (NATS_REPLICAS=3): one NATS server, the leader of the work stream,
 * is killed under a bounded load of webhooks, and nothing acknowledged is lost.
 */
describe('cluster mode on a 3-node NATS cluster: one NATS server killed under load', { timeout: 10 * 60_000 }, () => {
  let nats: SecureNatsCluster;
  let database: TestDatabase;
  let dataDir: string;
  let simulator: ClusterProcess;
  let twilioAuth: { accountSid: string; authToken: string };
  let publicBaseUrl: string;
  const processes: ClusterProcess[] = [];
  const receivers: CallbackReceiver[] = [];
  const agents: { agentId: string; address: string; secret: string }[] = [];

  before(async () => {
    nats = await startSecureNats({ count: 3 });
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-nats3-'));
    simulator = await startProcess('simulator', ['simulator/src/cli.ts', '--port', '0', '--json', '--record-limit', '100000'], {}, /"credentials"/);
    const info = JSON.parse(simulator.output().split('\n').find((l) => l.startsWith('{'))!) as {
      baseUrls: Record<string, string>;
      credentials: { twilio: { accountSid: string; authToken: string } };
    };
    twilioAuth = info.credentials.twilio;
    const port = await freePort();
    publicBaseUrl = `http://127.0.0.1:${port}`;
    const env = {
      DATABASE_URL: database.url,
      SECRET_KEY: randomBytes(32).toString('hex'),
      PUBLIC_BASE_URL: publicBaseUrl,
      ORCHESTRATOR_TOKEN: ORCHESTRATOR,
      DATA_DIR: dataDir,
      DEMO_MODE: 'false',
      TWILIO_ACCOUNT_SID: twilioAuth.accountSid,
      TWILIO_AUTH_TOKEN: twilioAuth.authToken,
      TWILIO_BASE_URL: info.baseUrls.twilio!,
      POOL_PHONE_NUMBERS: Array.from({ length: AGENTS }, (_, i) => `+1202555${String(300 + i).padStart(4, '0')}`).join(','),
      CLUSTER_PARTITIONS: '8',
      CLUSTER_LEASE_TTL_MS: String(LEASE_TTL_MS),
      CALLBACK_RETRY_SCHEDULE: '0,100,200,400,800,1600',
      NATS_REPLICAS: '3',
    };
    for (const name of ['rt-1', 'rt-2']) {
      processes.push(await startProcess(name, ['gateway/src/cli.ts', 'runtime'], { ...env, ...nats.settings('runtime'), NODE_ID: name }, /runtime node \S+ is running/));
    }
    processes.push(await startProcess('gw-1', ['gateway/src/cli.ts', 'gateway', '--port', String(port)], { ...env, ...nats.settings('gateway'), NODE_ID: 'gw-1' }, /API:\s+http/));
    const auth = { authorization: `Bearer ${ORCHESTRATOR}`, 'content-type': 'application/json' };
    for (let i = 0; i < AGENTS; i++) {
      const receiver = await startCallbackReceiver(() => agents[i]?.secret);
      receivers.push(receiver);
      const agentId = `nats3-agent-${i}`;
      const res = await fetch(`${publicBaseUrl}/api/v1/provision`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ agentId, displayName: agentId, channels: ['sms'], callbackUrl: receiver.url }),
      });
      const body = (await res.json()) as { signingSecret: string; channels: { sms: { address: string } } };
      assert.equal(res.status, 201, JSON.stringify(body));
      const unlimited = { actionsPerMinute: null, actionsPerHour: null, actionsPerDay: null, spendPerDay: null, spendPerMonth: null };
      assert.equal((await fetch(`${publicBaseUrl}/admin/api/agents/${agentId}/limits`, { method: 'PUT', headers: auth, body: JSON.stringify({ limits: unlimited }) })).status, 200);
      agents.push({ agentId, address: body.channels.sms.address, secret: body.signingSecret });
    }
  });

  after(async () => {
    await Promise.all(processes.map((p) => p.kill('SIGKILL')));
    await simulator?.kill('SIGKILL');
    await Promise.all(receivers.map((r) => r.close()));
    await nats?.stop();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const signedSms = (i: number, sid: string) => {
    const agent = agents[i]!;
    const params = { MessageSid: sid, SmsSid: sid, AccountSid: twilioAuth.accountSid, From: CUSTOMER, To: agent.address, Body: `hello ${sid}`, NumMedia: '0', SmsStatus: 'received' };
    const path = `/webhooks/${agent.agentId}/sms`;
    const signature = twilio.getExpectedTwilioSignature(twilioAuth.authToken, `${publicBaseUrl}${path}`, params);
    return { url: `${publicBaseUrl}${path}`, init: { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, body: new URLSearchParams(params).toString() } };
  };

  /**
   * Served again, steadily: from `since`, each agent is sent new signed webhooks until one is
   * acknowledged, then STEADY_PROBES more over two lease TTLs, every one of which must be acknowledged
   * too (an agent that fails after it was served again is not served steadily). Returns the longest wait
   * for a first acknowledgement; acknowledged ids join `acked`, so they are checked for delivery too.
   */
  const servedSteadily = async (since: number, acked: Set<string>): Promise<number> => {
    const probe = async (agent: number) => {
      const sid = `SM${randomBytes(16).toString('hex')}`;
      const { url, init } = signedSms(agent, sid);
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) }).catch(() => undefined);
      await res?.arrayBuffer();
      if (res?.status === 200) acked.add(sid);
      return res?.status ?? 0;
    };
    const waits = await Promise.all(
      agents.map(async (_, agent) => {
        let status = 0;
        const served = async () => (status = await probe(agent)) === 200;
        await eventually(served, {
          timeoutMs: Math.max(0, SERVED_AGAIN_DEADLINE_MS - (Date.now() - since)),
          intervalMs: 100,
          message: () => `agent ${agent} served again within ${SERVED_AGAIN_DEADLINE_MS / 1000} s of the kill (last status ${status})`,
        });
        const wait = Date.now() - since;
        await steadily(served, {
          forMs: STEADY_PROBES * (LEASE_TTL_MS / 4),
          intervalMs: LEASE_TTL_MS / 4,
          message: () => `agent ${agent} was served again ${wait} ms after the kill, then answered ${status}`,
        });
        return wait;
      }),
    );
    return Math.max(...waits);
  };

  it('creates the work stream and the KV buckets with 3 replicas', async () => {
    const admin = await nats.connect('admin');
    try {
      const jsm = await jetstreamManager(admin);
      for (const stream of [protocol.WORK_STREAM, `KV_${protocol.LEASES_BUCKET}`, `KV_${protocol.LEASES_BUCKET}_nodes`, `KV_${protocol.CALLS_BUCKET}`]) {
        const info = await jsm.streams.info(stream);
        assert.equal(info.config.num_replicas, 3, stream);
      }
    } finally {
      await admin.close();
    }
  });

  it('the leader of the work stream killed under webhooks: every acknowledged webhook reaches its agent, once; every agent is served again, then steadily', async () => {
    const admin = await nats.connect('admin');
    const leader = (await (await jetstreamManager(admin)).streams.info(protocol.WORK_STREAM)).cluster?.leader;
    await admin.close();
    const victim = Number(/sb-nats-(\d)/.exec(leader ?? '')?.[1] ?? 1) - 1;
    const runId = randomBytes(4).toString('hex');
    const queue = Array.from({ length: WEBHOOKS }, (_, i) => ({ agent: i % AGENTS, sid: `SM${runId}${i.toString(16).padStart(24, '0')}` }));
    const acked = new Set<string>();
    const failures: string[] = [];
    let killed: Promise<void> | undefined;
    let served: Promise<number> = Promise.resolve(Infinity);
    const probed = new Set<string>();
    let retries = 0;
    const deadline = Date.now() + WORK_DEADLINE_MS;
    const worker = async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        const { url, init } = signedSms(item.agent, item.sid);
        let last = '';
        // As a provider does: the webhook is repeated until it is acknowledged, or the work's deadline passes.
        const acknowledged = await eventually(
          async () => {
            const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) }).catch((err: Error) => err);
            if (!(res instanceof Error)) await res.arrayBuffer();
            if (!(res instanceof Error) && res.status === 200) return true;
            last = res instanceof Error ? res.name : `HTTP ${res.status}`;
            retries++;
            return false;
          },
          { timeoutMs: Math.max(0, deadline - Date.now()), intervalMs: 250 },
        ).catch(() => false);
        if (acknowledged) acked.add(item.sid);
        else failures.push(`${item.sid}: ${last}`);
        if (acked.size === KILL_AFTER && !killed) {
          killed = nats.kill(victim, 'SIGKILL').then(() => {
            served = servedSteadily(Date.now(), probed);
            // Awaited below, after the work; until then a failure waits there.
            served.catch(() => undefined);
          });
        }
      }
    };
    await Promise.all(Array.from({ length: 4 }, () => worker()));
    await killed;
    assert.ok(killed, 'the NATS server was never killed');
    assert.deepEqual(failures, [], 'webhooks never acknowledged');
    assert.equal(acked.size, WEBHOOKS);
    const gap = await served;
    const expected = new Set([...acked, ...probed]);
    const arrivals = () => receivers.flatMap((r) => r.events.filter((e) => e.event.type === 'message.inbound' && expected.has(String(e.event.data.externalId))));
    const unseen = () => {
      const seen = new Set(arrivals().map((e) => String(e.event.data.externalId)));
      return [...expected].filter((sid) => !seen.has(sid));
    };
    await eventually(() => unseen().length === 0, { timeoutMs: 60_000, intervalMs: 250, message: () => `every acknowledged webhook to reach its agent (${unseen().length} have not: ${unseen().slice(0, 10).join(', ')})` });
    const ids = new Map<string, Set<string>>();
    for (const { event, headers } of arrivals()) ids.set(String(event.data.externalId), (ids.get(String(event.data.externalId)) ?? new Set()).add(headers['webhook-id']!));
    assert.deepEqual([...ids].filter(([, s]) => s.size > 1), [], 'a message reached its agent under two webhook-ids');
    assert.equal(receivers.reduce((n, r) => n + r.rejected, 0), 0, 'a callback signature did not verify');
    console.log(
      `3-node NATS, ${leader} (work stream leader) killed after ${KILL_AFTER} of ${WEBHOOKS} webhooks: all acknowledged after ${retries} retried attempts, ` +
        `all delivered (with ${probed.size} probes); every agent served again ≤ ${gap} ms after the kill, and steadily after`,
    );
  });

  it('the shipped NATS permissions refused nothing', () => {
    assert.deepEqual(nats.violations().filter((l) => !/Publish Violation - User "gateway", Subject "_INBOX_node\./.test(l)), []);
  });
});
