import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { partitionOf, preferredOwner } from '@switchboard/runtime/internal';
import { createTestDatabase, freePort, startNatsServer, type TestDatabase, type TestNatsServer } from '@switchboard/runtime/testing';
import { clusterEnv, startClusterProcess as startProcess, startSimulator, type ClusterProcess, type SimulatorProcess } from '../helpers/cluster-process.js';

/**
 * Planned handovers with sends in flight (real nats-server, PostgreSQL, a gateway, runtime nodes and
 * the simulator, each its own process): a node joining takes its share of the partitions from the
 * node serving them all, and a node stopping gracefully hands its share back. Every send accepted
 * before the handover is answered 200 on its first try, by the node that accepted it, and reaches the
 * provider once. The provider answers each send after LATENCY_MS and fails some attempts with a
 * retryable 503, so sends are in their continuations (provider call, backoff, next attempt) when the
 * handover starts.
 */
const ORCHESTRATOR = `sb_orch_${randomBytes(24).toString('base64url')}`;
const LEASE_TTL_MS = 1500;
const PARTITIONS = 16;
/** Agents per node: half of them on partitions the second node prefers. */
const AGENTS_EACH = 3;
const LATENCY_MS = 1500;
const ERROR_RATE = 0.2;
const SEND_EVERY_MS = 100;
/** Sends keep coming for this long after the handover's trigger (a node up, a node gone). */
const SEND_AFTER_MS = 3000;
const CUSTOMER = '+14155550142';
const PUBLIC_BASE_URL = 'http://127.0.0.1:9';
const NODES = ['rt-1', 'rt-2'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Sent {
  body: string;
  agent: number;
  status: number;
  answer: string;
  startedAt: number;
  endedAt: number;
}

describe('cluster handovers with sends in flight', { timeout: 10 * 60_000 }, () => {
  let nats: TestNatsServer;
  let database: TestDatabase;
  let dataDir: string;
  let simulator: SimulatorProcess;
  let simulatorUrl: string;
  let env: Record<string, string>;
  let gateway: ClusterProcess & { url: string };
  const nodes = new Map<string, ClusterProcess & { probes: string }>();
  /** Agents by the node that prefers their partition once both run. */
  const agents: { agentId: string; token: string; home: string }[] = [];
  let sent = 0;

  const startNode = async (name: string) => {
    const port = await freePort();
    const node = Object.assign(await startProcess(name, ['gateway/src/cli.ts', 'runtime'], { ...env, LOG_LEVEL: 'info', NODE_ID: name, HEALTH_PORT: String(port) }, /runtime node \S+ is running/), {
      probes: `http://127.0.0.1:${port}`,
    });
    nodes.set(name, node);
    return node;
  };
  const partitionsOf = async (name: string): Promise<number[]> => {
    const res = await fetch(`${nodes.get(name)!.probes}/health`, { signal: AbortSignal.timeout(10_000) });
    return ((await res.json()) as { partitions: number[] }).partitions;
  };
  /** Waits until `name` holds exactly the partitions `live` gives it. */
  const settled = async (name: string, live: string[]) => {
    const share = Array.from({ length: PARTITIONS }, (_, p) => p).filter((p) => preferredOwner(p, live) === name);
    for (const deadline = Date.now() + 60_000; ; await sleep(100)) {
      const held = await partitionsOf(name);
      if (held.join() === share.join()) return;
      assert.ok(Date.now() < deadline, `${name} holds ${held.join()} not ${share.join()}; its log:\n${leaseLog(name)}`);
    }
  };
  const leaseLog = (name: string) => nodes.get(name)!.output().split('\n').filter((l) => l.includes('"partitions"') || l.includes('"level":40') || l.includes('"level":50')).slice(-20).join('\n');

  const send = async (agent: number): Promise<Sent> => {
    const body = `handover ${sent++}`;
    const startedAt = Date.now();
    const res = await fetch(`${gateway.url}/api/v1/send-message`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agents[agent]!.token}`, 'content-type': 'application/json', 'idempotency-key': `key-${body}` },
      body: JSON.stringify({ channel: 'sms', to: CUSTOMER, body }),
      signal: AbortSignal.timeout(120_000),
    }).catch((err: unknown) => ({ status: 0, text: async () => String(err) }));
    return { body, agent, status: res.status, answer: await res.text(), startedAt, endedAt: Date.now() };
  };
  /** Sends one message every SEND_EVERY_MS (the agents in turn) until `until` resolves and SEND_AFTER_MS more passed; resolves with every answer. */
  const sendThrough = async (until: Promise<unknown>): Promise<Sent[]> => {
    const sends: Promise<Sent>[] = [];
    let stopAt = Infinity;
    void until.then(() => (stopAt = Date.now() + SEND_AFTER_MS), () => (stopAt = 0));
    for (let i = 0; Date.now() < stopAt; i++) {
      sends.push(send(i % agents.length));
      await sleep(SEND_EVERY_MS);
    }
    await until;
    return Promise.all(sends);
  };
  /** The bodies the provider took, with how many times each. */
  const atProvider = async () => {
    const res = await fetch(`${simulatorUrl}/_sim/messages?provider=twilio`);
    const counts = new Map<string, number>();
    for (const m of ((await res.json()) as { messages: { body: string }[] }).messages) counts.set(m.body, (counts.get(m.body) ?? 0) + 1);
    return counts;
  };
  /** Every send answered 200 on its first try, and each reached the provider once (checked again after a journaled send would have been resumed). */
  const answeredOnce = async (sends: Sent[]) => {
    const failed = sends.filter((s) => s.status !== 200);
    assert.deepEqual(failed.map((s) => `${s.body} (agent ${s.agent}): ${s.status} ${s.answer}`), [], `every send answered 200 at once; logs:\n${[...nodes.keys()].map((n) => `${n}:\n${leaseLog(n)}`).join('\n')}`);
    // Past the time another node would resume a journaled send (SEND_TIMEOUT_MS + a lease TTL).
    await sleep(5000 + 2 * LEASE_TTL_MS);
    const counts = await atProvider();
    assert.deepEqual(sends.filter((s) => counts.get(s.body) !== 1).map((s) => `${s.body}: ${counts.get(s.body) ?? 0}×`), [], 'each message reached the provider exactly once');
  };
  /** Sends to `name`'s agents that were in flight at `at`. */
  const inFlight = (sends: Sent[], name: string, at: number) => sends.filter((s) => agents[s.agent]!.home === name && s.startedAt < at && s.endedAt > at);

  before(async () => {
    nats = await startNatsServer();
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-handover-'));
    simulator = await startSimulator();
    simulatorUrl = simulator.url;
    env = {
      ...clusterEnv({ natsUrl: nats.url, databaseUrl: database.url, publicBaseUrl: PUBLIC_BASE_URL, orchestratorToken: ORCHESTRATOR, dataDir, simulator }),
      POOL_PHONE_NUMBERS: Array.from({ length: 2 * AGENTS_EACH }, (_, i) => `+1202555${String(300 + i).padStart(4, '0')}`).join(','),
      CLUSTER_LEASE_TTL_MS: String(LEASE_TTL_MS),
      CLUSTER_PARTITIONS: String(PARTITIONS),
      SEND_TIMEOUT_MS: '5000',
      // Retries enough that no send runs out of attempts against the 503s (0.2^8), close together.
      SEND_MAX_ATTEMPTS: '8',
      SEND_RETRY_BASE_MS: '100',
      // Long enough for a send's whole run of attempts on a loaded machine: the drain ends when the sends do.
      ACTOR_DRAIN_MS: '30000',
    };
    await startNode('rt-1');
    await settled('rt-1', ['rt-1']);
    const port = await freePort();
    gateway = Object.assign(await startProcess('gw-1', ['gateway/src/cli.ts', 'gateway', '--port', String(port)], { ...env, NODE_ID: 'gw-1' }, /API:\s+http/), { url: `http://127.0.0.1:${port}` });
    const auth = { authorization: `Bearer ${ORCHESTRATOR}`, 'content-type': 'application/json' };
    const wanted = new Map(NODES.map((n) => [n, 0]));
    for (let i = 0; agents.length < 2 * AGENTS_EACH; i++) {
      const agentId = `handover-agent-${i}`;
      const home = preferredOwner(partitionOf(agentId, PARTITIONS), NODES)!;
      if (wanted.get(home)! >= AGENTS_EACH) continue;
      wanted.set(home, wanted.get(home)! + 1);
      const res = await fetch(`${gateway.url}/api/v1/provision`, { method: 'POST', headers: auth, body: JSON.stringify({ agentId, displayName: agentId, channels: ['sms'] }) });
      const body = (await res.json()) as { securityToken: string };
      assert.equal(res.status, 201, JSON.stringify(body));
      agents.push({ agentId, token: body.securityToken, home });
    }
    const faults = [
      { provider: 'twilio', method: 'POST', pathIncludes: '/Messages.json', latencyMs: LATENCY_MS },
      { provider: 'twilio', method: 'POST', pathIncludes: '/Messages.json', errorRate: ERROR_RATE, status: 503 },
    ];
    const res = await fetch(`${simulatorUrl}/_sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
    assert.equal(res.status, 201);
  });

  after(async () => {
    await Promise.all([...nodes.values(), gateway, simulator].filter(Boolean).map((p) => p.kill()));
    await nats?.stop();
    await database?.drop().catch(() => undefined);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('a node joining takes its share while sends are in flight: each answered 200 at once, each sent once', async () => {
    let joinedAt = 0;
    const joining = (async () => {
      await sleep(2000);
      await startNode('rt-2');
      joinedAt = Date.now();
      await settled('rt-2', NODES);
    })();
    const sends = await sendThrough(joining);
    await settled('rt-1', NODES);
    const caught = inFlight(sends, 'rt-2', joinedAt);
    assert.ok(caught.length >= 3, `sends to the partitions handed over were in flight as rt-2 joined (${caught.length})`);
    console.log(`# join: ${sends.length} sends, ${caught.length} in flight on partitions handed over; longest answer ${Math.max(...sends.map((s) => s.endedAt - s.startedAt))} ms`);
    await answeredOnce(sends);
  });

  it('a node stopping gracefully hands its share back once its sends finished: each answered 200 at once, each sent once', async () => {
    const rt2 = nodes.get('rt-2')!;
    let stoppedAt = 0;
    let stopTook = 0;
    const stopping = (async () => {
      await sleep(2000);
      stoppedAt = Date.now();
      await rt2.kill('SIGTERM');
      stopTook = Date.now() - stoppedAt;
    })();
    const sends = await sendThrough(stopping);
    assert.equal(rt2.child.exitCode, 0, `rt-2 stopped cleanly:\n${rt2.output().slice(-3000)}`);
    assert.ok(rt2.output().includes('"reason":"stopped"'), `rt-2 handed its partitions over as it stopped:\n${leaseLog('rt-2')}`);
    await settled('rt-1', ['rt-1']);
    const caught = inFlight(sends, 'rt-2', stoppedAt);
    assert.ok(caught.length >= 3, `sends to rt-2's partitions were in flight as it was told to stop (${caught.length})`);
    console.log(`# stop: ${sends.length} sends, ${caught.length} in flight on rt-2 at SIGTERM; rt-2 stopped in ${stopTook} ms; longest answer ${Math.max(...sends.map((s) => s.endedAt - s.startedAt))} ms`);
    await answeredOnce(sends);
  });
});
