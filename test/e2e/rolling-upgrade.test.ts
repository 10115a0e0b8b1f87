import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import pg from 'pg';
import twilio from 'twilio';
import { partitionOf, protocol } from '@switchboard/runtime/internal';
import { createTestDatabase, eventually, freePort, startNatsServer, steadily, type TestDatabase, type TestNatsServer } from '@switchboard/runtime/testing';
import { startClusterProcess, type ClusterProcess } from '../helpers/cluster-process.js';
import { checkOutPreviousRelease, type PreviousRelease } from '../helpers/previous-release.js';

/**
 * A rolling upgrade: a cluster of the previous release (deploy/previous-release.json, checked out beside
 * this checkout) under a paced signed load of webhooks and REST sends, its runtime nodes and then its
 * gateways replaced one at a time by this checkout's. Every acknowledged webhook and send is stored once
 * and every send is at the provider once; no agent is dark longer than a failover; old and new speak
 * protocol versions one apart at most, on one database migrated by the new release while old processes use it.
 */
const ROOT = realpathSync(fileURLToPath(new URL('../../', import.meta.url)));
const RECORD_IMPORTS = fileURLToPath(new URL('../helpers/record-imports.mjs', import.meta.url));
const ORCHESTRATOR = `sb_orch_${randomBytes(16).toString('hex')}`;
const AGENTS = 6;
const PARTITIONS = 16;
const LEASE_TTL_MS = 1500;
/**
 * A failover: a dead node's leases lapse after a lease TTL and another node takes them. A process replaced
 * in a rolling upgrade hands its partitions over before it goes, so no agent may be dark longer than that,
 * with generous room for a loaded 2-core runner (a bound on correctness, not a speed figure).
 */
const FAILOVER_MS = LEASE_TTL_MS + 3_000;
/** After each replacement every agent answers again, then keeps answering for this long. */
const STEADY_MS = 2 * LEASE_TTL_MS;
const PROBE_EVERY_MS = 100;
/** Each load worker pauses this long after each acknowledged item: a paced load, not a flood. */
const PACE_MS = 100;
const LOAD_WORKERS = 4;
const CUSTOMER = '+14155550142';
const PUBLIC_BASE_URL = 'http://127.0.0.1:9';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits for every start, so that what did start is known to `after` (and stopped) even when another failed. */
const allStarted = async (starts: Promise<unknown>[]) => {
  const failed = (await Promise.allSettled(starts)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
};
const protocolOf = (root: string) => Number(/export const PROTOCOL_VERSION = (\d+)/.exec(readFileSync(join(root, 'runtime/src/protocol/index.ts'), 'utf8'))?.[1]);
const migrationsOf = (root: string) => readdirSync(join(root, 'runtime/src/store/migrations')).filter((f) => /^\d+-.*\.ts$/.test(f));

/** A migration step a running process of the previous release could trip on: only expand in the release that rolls. */
const CONTRACTS = [/\bDROP\s+(TABLE|COLUMN|VIEW)\b/i, /\bRENAME\b/i, /\bALTER\s+COLUMN\b[^`]*\b(TYPE|SET\s+NOT\s+NULL)\b/i, /\bADD\s+COLUMN\b(?![^`,]*\bDEFAULT\b)[^`,]*\bNOT\s+NULL\b/i];

describe('rolling upgrade: a cluster of the previous release replaced one process at a time under load', { timeout: 6 * 60_000 }, () => {
  let previous: PreviousRelease;
  let nats: TestNatsServer;
  let spy: NatsConnection;
  let database: TestDatabase;
  let dataDir: string;
  let simulator: ClusterProcess;
  let simulatorUrl: string;
  let twilioAuthToken: string;
  let env: Record<string, string>;
  type Gateway = ClusterProcess & { url: string };
  type Node = ClusterProcess & { probes: string };
  const gateways: Gateway[] = [];
  const nodes: Node[] = [];
  /** Where load and probes go: the gateways a load balancer would send to. */
  const targets: Gateway[] = [];
  const agents: { agentId: string; token: string; address: string }[] = [];
  /** What each old process resolved (record-imports.mjs), to tell which code it ran. */
  const importLogs: string[] = [];
  /** Sb-Protocol headers seen on the bus, by phase of the roll. */
  const onTheWire = new Map<string, Map<string, number>>();
  let phase = 'previous release';

  const startGateway = async (name: string, root: string) => {
    const port = await freePort();
    const old = root !== ROOT;
    const log = join(dataDir, `${name}.imports`);
    if (old) importLogs.push(log);
    const args = [...(old ? ['--import', RECORD_IMPORTS] : []), 'gateway/src/cli.ts', 'gateway', '--port', String(port)];
    const started = await startClusterProcess(name, args, { ...env, NODE_ID: name, ...(old ? { SWITCHBOARD_IMPORT_LOG: log } : {}) }, /API:\s+http/, root);
    const gateway = Object.assign(started, { url: `http://127.0.0.1:${port}` });
    gateways.push(gateway);
    return gateway;
  };
  const startNode = async (name: string, root: string) => {
    const port = await freePort();
    const old = root !== ROOT;
    const log = join(dataDir, `${name}.imports`);
    if (old) importLogs.push(log);
    const args = [...(old ? ['--import', RECORD_IMPORTS] : []), 'gateway/src/cli.ts', 'runtime'];
    // At info, each node logs the partitions it takes and hands over: a failure shows them.
    const started = await startClusterProcess(name, args, { ...env, LOG_LEVEL: 'info', NODE_ID: name, HEALTH_PORT: String(port), ...(old ? { SWITCHBOARD_IMPORT_LOG: log } : {}) }, /runtime node \S+ is running/, root);
    const node = Object.assign(started, { probes: `http://127.0.0.1:${port}` });
    nodes.push(node);
    return node;
  };
  const running = <T extends ClusterProcess>(list: T[]) => list.filter((p) => p.child.exitCode === null && p.child.signalCode === null);

  /** What every process logged last, for a failure's message (the nodes log the partitions they take and hand over). */
  const diagnose = () => `\n${[...nodes, ...gateways].map((p) => `--- ${p.name}\n${p.output().slice(-2500)}`).join('\n')}`;

  /** A signed Twilio SMS webhook for agent `i`. */
  const signedSms = (i: number, sid: string) => {
    const agent = agents[i]!;
    const params = { MessageSid: sid, SmsSid: sid, AccountSid: env.TWILIO_ACCOUNT_SID!, From: CUSTOMER, To: agent.address, Body: `hello ${sid}`, NumMedia: '0', SmsStatus: 'received' };
    const path = `/webhooks/${agent.agentId}/sms`;
    const signature = twilio.getExpectedTwilioSignature(twilioAuthToken, `${PUBLIC_BASE_URL}${path}`, params);
    return { path, init: { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, body: new URLSearchParams(params).toString() } };
  };

  /**
   * The load: LOAD_WORKERS workers, each taking the next item (two signed webhooks to one REST send, over
   * the agents), retrying it through the next gateway until it is acknowledged (as a provider retries a
   * webhook with its MessageSid and a client a send with its Idempotency-Key), then pausing PACE_MS.
   * Once stopped, a worker finishes the item it holds.
   */
  const startLoad = (run: string) => {
    const webhooks = new Set<string>();
    const sends = new Set<string>();
    const attemptedSends = new Set<string>();
    const failures: string[] = [];
    let stopped = false;
    let next = 0;
    const deliver = async (label: string, attempt: (target: Gateway) => Promise<string | true>) => {
      let last: string | true = 'never tried';
      let n = 0;
      // Each try goes to the next gateway, as a client behind a load balancer retries.
      const delivered = await eventually(
        async () => {
          const target = targets[n++ % targets.length]!;
          last = await attempt(target).catch((err: Error) => `${err.name} from ${target.name}`);
          return last === true;
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      ).catch(() => false);
      if (!delivered) failures.push(`${label}: ${last}`);
      return delivered;
    };
    const worker = async (w: number) => {
      while (!stopped) {
        const i = next++;
        const agent = i % AGENTS;
        if (i % 3 === 2) {
          const body = `roll ${run} ${i}`;
          attemptedSends.add(body);
          const sent = await deliver(`send "${body}"`, async (target) => {
            const res = await fetch(`${target.url}/api/v1/send-message`, {
              method: 'POST',
              headers: { authorization: `Bearer ${agents[agent]!.token}`, 'content-type': 'application/json', 'idempotency-key': `${run}-${i}` },
              body: JSON.stringify({ channel: 'sms', to: CUSTOMER, body }),
              signal: AbortSignal.timeout(45_000),
            });
            const text = await res.text();
            return res.status === 200 || `HTTP ${res.status} ${text.slice(0, 160)} from ${target.name}`;
          });
          if (sent) sends.add(body);
        } else {
          const sid = `SM${run}${i.toString(16).padStart(24, '0')}`;
          const { path, init } = signedSms(agent, sid);
          const acked = await deliver(`webhook ${sid}`, async (target) => {
            const res = await fetch(`${target.url}${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
            const text = await res.text();
            return res.status === 200 || `HTTP ${res.status} ${text.slice(0, 160)} from ${target.name}`;
          });
          if (acked) webhooks.add(sid);
        }
        await sleep(PACE_MS + w);
      }
    };
    const work = Promise.all(Array.from({ length: LOAD_WORKERS }, (_, w) => worker(w)));
    return {
      webhooks,
      sends,
      attemptedSends,
      failures,
      async stop() {
        stopped = true;
        await work;
      },
    };
  };

  /**
   * Probes of every agent (channel status, answered by the agent's actor on the node holding its
   * partition) every PROBE_EVERY_MS through the gateways in turn. An agent is dark from its last answered
   * probe to its next; the longest such gap is kept per phase of the roll.
   */
  const startProbes = () => {
    /** When each agent was last answered; 0: not yet. */
    const lastServed = agents.map(() => 0);
    const lastFailure: string[] = agents.map(() => '');
    /** The failed probes since each agent's last answer, and those of each phase's longest gap. */
    const failing: string[][] = agents.map(() => []);
    const darkest = new Map<string, { agent: string; ms: number; failures: string[] }>();
    const dark = new Map<string, number[]>();
    let stopped = false;
    const prober = async (agent: number) => {
      for (let n = 0; !stopped; n++) {
        const target = targets[n % targets.length]!;
        const sent = Date.now();
        const res = await fetch(`${target.url}/api/v1/channel-status`, {
          headers: { authorization: `Bearer ${agents[agent]!.token}` },
          signal: AbortSignal.timeout(15_000),
        }).catch((err: Error) => err);
        const now = Date.now();
        if (!(res instanceof Error) && res.status === 200) {
          const gaps = dark.get(phase) ?? agents.map(() => 0);
          dark.set(phase, gaps);
          const gap = now - lastServed[agent]!;
          if (lastServed[agent]! > 0 && gap > gaps[agent]!) {
            gaps[agent] = gap;
            if (gap > (darkest.get(phase)?.ms ?? 0)) darkest.set(phase, { agent: agents[agent]!.agentId, ms: gap, failures: failing[agent]! });
          }
          lastServed[agent] = now;
          failing[agent] = [];
        } else {
          lastFailure[agent] = `${res instanceof Error ? res.name : `HTTP ${res.status} ${(await res.text()).slice(0, 160)}`} from ${target.name} after ${now - sent} ms`;
          failing[agent]!.push(lastFailure[agent]!);
        }
        if (!(res instanceof Error)) await res.arrayBuffer().catch(() => undefined);
        await sleep(PROBE_EVERY_MS);
      }
    };
    const probing = Promise.all(agents.map((_, agent) => prober(agent)));
    return {
      lastServed,
      lastFailure,
      dark,
      darkest,
      async stop() {
        stopped = true;
        await probing;
      },
    };
  };
  let probes: ReturnType<typeof startProbes>;

  /** Every agent answered since `since`, then answered steadily for STEADY_MS; resolves with how long after `since` all were answered. */
  const servedSteadily = async (since: number, label: string): Promise<number> => {
    const unserved = () => agents.map((a, i) => ({ agent: a.agentId, partition: partitionOf(a.agentId, PARTITIONS), i })).filter(({ i }) => probes.lastServed[i]! <= since);
    await eventually(() => unserved().length === 0, {
      timeoutMs: 60_000,
      intervalMs: 50,
      message: () => `${label}: every agent served again; not: ${JSON.stringify(unserved().map((u) => ({ ...u, last: probes.lastFailure[u.i] })))}${diagnose()}`,
    });
    const servedAgain = Date.now() - since;
    await steadily(() => probes.lastServed.every((t) => Date.now() - t < FAILOVER_MS), {
      forMs: STEADY_MS,
      intervalMs: 100,
      message: () => `${label}: every agent served steadily; last answers ${probes.lastServed.map((t) => `${Date.now() - t} ms ago`).join(', ')}; last failures ${JSON.stringify(probes.lastFailure)}${diagnose()}`,
    });
    return servedAgain;
  };

  /** Stops `process` as an orchestrator would (SIGTERM: a gateway drains, a node hands its partitions over); it must exit cleanly. */
  const stopCleanly = async (process: ClusterProcess) => {
    process.child.kill('SIGTERM');
    const timer = sleep(30_000).then(() => 'hung');
    const ended = await Promise.race([process.exited.then(() => 'exited'), timer]);
    assert.equal(ended, 'exited', `${process.name} did not stop within 30 s of SIGTERM:\n${process.output().slice(-3000)}`);
    assert.equal(process.child.exitCode, 0, `${process.name} stopped uncleanly (${process.child.exitCode ?? process.child.signalCode}):\n${process.output().slice(-3000)}`);
  };

  let startedIn = 0;
  before(async () => {
    const beforeStarted = Date.now();
    previous = checkOutPreviousRelease();
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-rolling-'));
    // The simulator, NATS and the database at once: each start is mostly waiting.
    await allStarted([
      startClusterProcess('simulator', ['simulator/src/cli.ts', '--port', '0', '--json', '--record-limit', '100000'], {}, /"credentials"/).then((p) => (simulator = p)),
      startNatsServer().then((n) => (nats = n)),
      createTestDatabase().then((d) => (database = d)),
    ]);
    spy = await connect({ servers: nats.url, name: 'rolling-upgrade-spy' });
    // What the processes publish and the replies they send, never a request subject: a subscription there
    // (`>`) would be a responder that never answers, so a request sent while a partition changes hands
    // would wait out its time-out instead of being told at once that no one listens, and asked again.
    const wire = [protocol.eventWildcard(), protocol.inboxWildcard(), protocol.presenceWildcard(), ...(['gateway', 'node'] as const).map((role) => `${protocol.roleInboxPrefix(role)}.>`)];
    for (const subject of wire) {
      spy.subscribe(subject, {
        callback: (_err, msg) => {
          const version = msg.headers?.get(protocol.PROTOCOL_HEADER);
          if (!version) return;
          const seen = onTheWire.get(phase) ?? new Map<string, number>();
          onTheWire.set(phase, seen.set(version, (seen.get(version) ?? 0) + 1));
        },
      });
    }
    const info = JSON.parse(simulator.output().split('\n').find((l) => l.startsWith('{'))!) as {
      url: string;
      baseUrls: Record<string, string>;
      credentials: { twilio: { accountSid: string; authToken: string } };
    };
    simulatorUrl = info.url;
    twilioAuthToken = info.credentials.twilio.authToken;
    env = {
      NATS_URL: nats.url,
      DATABASE_URL: database.url,
      SECRET_KEY: randomBytes(32).toString('hex'),
      PUBLIC_BASE_URL,
      ORCHESTRATOR_TOKEN: ORCHESTRATOR,
      DATA_DIR: dataDir,
      DEMO_MODE: 'false',
      TWILIO_ACCOUNT_SID: info.credentials.twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilioAuthToken,
      TWILIO_BASE_URL: info.baseUrls.twilio!,
      POOL_PHONE_NUMBERS: Array.from({ length: AGENTS }, (_, i) => `+1202555${String(300 + i).padStart(4, '0')}`).join(','),
      CLUSTER_PARTITIONS: String(PARTITIONS),
      CLUSTER_LEASE_TTL_MS: String(LEASE_TTL_MS),
      SEND_TIMEOUT_MS: '5000',
    };
    // The previous release's cluster: its processes start together (tsx compiles each from source).
    // Named `<role>-<release>`: a NODE_ID is letters, digits, `-` and `_`.
    const release = previous.tag.replace(/[^A-Za-z0-9_-]/g, '_');
    await allStarted([...['rt-1', 'rt-2'].map((n) => startNode(`${n}-${release}`, previous.dir)), ...['gw-1', 'gw-2'].map((n) => startGateway(`${n}-${release}`, previous.dir))]);
    startedIn = Date.now() - beforeStarted;
    targets.push(...gateways);
    const auth = { authorization: `Bearer ${ORCHESTRATOR}`, 'content-type': 'application/json' };
    for (let i = 0; i < AGENTS; i++) {
      const agentId = `rolling-agent-${i}`;
      const gateway = gateways[i % 2]!;
      const res = await fetch(`${gateway.url}/api/v1/provision`, { method: 'POST', headers: auth, body: JSON.stringify({ agentId, displayName: agentId, channels: ['sms'] }) });
      const body = (await res.json()) as { securityToken: string; channels: { sms: { address: string } } };
      assert.equal(res.status, 201, JSON.stringify(body));
      const unlimited = { actionsPerMinute: null, actionsPerHour: null, actionsPerDay: null, spendPerDay: null, spendPerMonth: null };
      const limits = await fetch(`${gateway.url}/admin/api/agents/${agentId}/limits`, { method: 'PUT', headers: auth, body: JSON.stringify({ limits: unlimited }) });
      assert.equal(limits.status, 200);
      agents.push({ agentId, token: body.securityToken, address: body.channels.sms.address });
    }
  });

  after(async () => {
    await probes?.stop();
    await Promise.all([...gateways, ...nodes].map((p) => p.kill('SIGKILL')));
    await simulator?.kill('SIGKILL');
    await spy?.close();
    await nats?.stop();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    previous?.remove();
  });

  it("the previous release's processes run its own code, and the migrations this release adds to its schema only expand it", () => {
    assert.notEqual(previous.dir, ROOT);
    for (const log of importLogs) {
      const files = readFileSync(log, 'utf8').split('\n').filter((u) => u.startsWith('file://')).map((u) => fileURLToPath(u));
      const own = files.filter((f) => f.startsWith(`${previous.dir}/`) && !f.includes('/node_modules/'));
      assert.ok(own.includes(join(previous.dir, 'runtime/src/protocol/index.ts')), `${log}: the previous release's process loaded its own protocol module (loaded ${own.length} of its files)`);
      const ours = files.filter((f) => f.startsWith(`${ROOT}/`) && !f.includes('/node_modules/') && f !== RECORD_IMPORTS);
      assert.deepEqual(ours, [], `${log}: the previous release's process loaded this checkout's code`);
    }
    const added = migrationsOf(ROOT).filter((f) => !existsSync(join(previous.dir, 'runtime/src/store/migrations', f)));
    for (const file of added) {
      const text = readFileSync(join(ROOT, 'runtime/src/store/migrations', file), 'utf8');
      const contracting = CONTRACTS.filter((c) => c.test(text));
      assert.deepEqual(contracting.map(String), [], `migration ${file} contracts the schema the previous release still uses: split it, expand now and contract in the release after (docs/cluster.md, "Rolling upgrades")`);
    }
    console.log(`rolling upgrade: from ${previous.tag} (${previous.commit.slice(0, 7)}, found by ${previous.ref === previous.tag ? 'its tag' : 'its commit'}): migrations this release adds: ${added.length === 0 ? 'none' : added.join(', ')}`);
  });

  it('each runtime node, then each gateway, replaced by this release under load: every acknowledged webhook and send stored once, every send at the provider once, no agent dark longer than a failover', async () => {
    const oldProtocol = protocolOf(previous.dir);
    const newProtocol = protocolOf(ROOT);
    assert.ok(Math.abs(newProtocol - oldProtocol) <= 1, `this release speaks Sb-Protocol ${newProtocol}, the previous ${oldProtocol}: more than one apart, they cannot share a cluster (docs/cluster.md, "Rolling upgrades")`);
    const run = randomBytes(4).toString('hex');
    const oldNodes = [...nodes].sort((a, b) => a.name.localeCompare(b.name));
    const oldGateways = [...gateways].sort((a, b) => a.name.localeCompare(b.name));
    // This release's gateways start first and take traffic only when their turn comes (a surge, as an
    // orchestrator starts a new pod before it stops an old one): a gateway not in service touches no agent.
    // Started before the load, not while the nodes roll: two processes compiling at once beside a joining
    // node starve a 2-core runner that runs another cluster file beside this one, and the probes with it.
    const standby: Gateway[] = [];
    await allStarted(oldGateways.map((old) => startGateway(`${old.name.slice(0, 'gw-1'.length)}-main`, ROOT).then((g) => standby.push(g))));
    standby.sort((a, b) => a.name.localeCompare(b.name));
    probes = startProbes();
    const load = startLoad(run);
    const started = Date.now();
    await servedSteadily(started, `the cluster of ${previous.tag}`);
    const replaced: { name: string; startMs: number; stopMs: number; servedAgainMs: number }[] = [];
    /** Which partitions a node holds, from its probes. */
    const holds = async (node: Node) => ((await (await fetch(`${node.probes}/health`)).json()) as { partitions: number[] }).partitions;
    try {
      for (const old of oldNodes) {
        const name = `${old.name.slice(0, 'rt-1'.length)}-main`;
        phase = `${name} joins`;
        const starting = Date.now();
        const fresh = await startNode(name, ROOT);
        const startMs = Date.now() - starting;
        await eventually(async () => (await holds(fresh)).length > 0, { timeoutMs: 30_000, message: () => `${name} takes partitions${diagnose()}` });
        await servedSteadily(starting, `${name} joined`);
        phase = `${old.name} stops`;
        const since = Date.now();
        await stopCleanly(old);
        const stopMs = Date.now() - since;
        replaced.push({ name: old.name, startMs, stopMs, servedAgainMs: await servedSteadily(since, `${old.name} replaced by ${name}`) });
      }
      for (const [i, old] of oldGateways.entries()) {
        phase = `${old.name} replaced`;
        const fresh = standby[i]!;
        const name = fresh.name;
        targets.push(fresh);
        // A load balancer stops sending to a gateway before it is stopped; what it still holds drains.
        targets.splice(targets.indexOf(old), 1);
        const since = Date.now();
        await stopCleanly(old);
        const stopMs = Date.now() - since;
        replaced.push({ name: old.name, startMs: 0, stopMs, servedAgainMs: await servedSteadily(since, `${old.name} replaced by ${name}`) });
      }
      phase = 'this release';
      await servedSteadily(Date.now(), 'every process replaced');
    } finally {
      await load.stop();
      await probes.stop();
    }
    assert.deepEqual(load.failures, [], 'work never acknowledged within 60 s of retries');
    assert.equal(running(nodes).length, 2);
    assert.ok(running([...nodes, ...gateways]).every((p) => p.name.endsWith('-main')), 'only processes of this release are left');

    // Counted in PostgreSQL: every acknowledged webhook once, every acknowledged send once, no send twice.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    let inbound: Map<string, number>;
    let outbound: Map<string, number>;
    try {
      const inRows = await client.query<{ external_id: string; n: string }>(`SELECT external_id, COUNT(*) AS n FROM messages WHERE direction = 'inbound' AND external_id LIKE $1 GROUP BY external_id`, [`SM${run}%`]);
      inbound = new Map(inRows.rows.map((r) => [r.external_id, Number(r.n)]));
      const outRows = await client.query<{ body: string; n: string }>(`SELECT body, COUNT(*) AS n FROM messages WHERE direction = 'outbound' AND body LIKE $1 GROUP BY body`, [`roll ${run} %`]);
      outbound = new Map(outRows.rows.map((r) => [r.body, Number(r.n)]));
    } finally {
      await client.end();
    }
    assert.deepEqual([...load.webhooks].filter((sid) => inbound.get(sid) !== 1), [], 'an acknowledged webhook not stored exactly once');
    assert.deepEqual([...load.sends].filter((body) => outbound.get(body) !== 1), [], 'an acknowledged send not stored exactly once');
    assert.deepEqual([...outbound].filter(([, n]) => n > 1), [], 'a send stored twice');
    // Counted at the provider: every acknowledged send taken once, none twice.
    const res = await fetch(`${simulatorUrl}/_sim/messages?provider=twilio`);
    const taken = ((await res.json()) as { messages: { body: string }[] }).messages.filter((m) => m.body.startsWith(`roll ${run} `));
    const atProvider = new Map<string, number>();
    for (const m of taken) atProvider.set(m.body, (atProvider.get(m.body) ?? 0) + 1);
    assert.deepEqual([...load.sends].filter((body) => atProvider.get(body) !== 1), [], 'an acknowledged send not at the provider exactly once');
    assert.deepEqual([...atProvider].filter(([, n]) => n > 1), [], 'a send at the provider twice');

    // No agent dark longer than a failover, in any phase of the roll.
    const darkest = [...probes.dark].map(([name, gaps]) => ({ phase: name, ms: Math.max(...gaps), agent: agents[gaps.indexOf(Math.max(...gaps))]!.agentId }));
    for (const { phase: name, ms, agent } of darkest) assert.ok(ms <= FAILOVER_MS, `${name}: ${agent} was dark ${ms} ms, longer than a failover (lease TTL ${LEASE_TTL_MS} ms, bound ${FAILOVER_MS} ms); its failed probes meanwhile: ${JSON.stringify(probes.darkest.get(name)?.failures)}${diagnose()}`);

    // On the wire: the previous release's version alone before the roll, this release's alone after, nothing else between.
    const versions = (name: string) => [...(onTheWire.get(name)?.keys() ?? [])].sort();
    assert.deepEqual(versions(`previous release`), [String(oldProtocol)], `the previous release's cluster speaks Sb-Protocol ${oldProtocol}`);
    assert.deepEqual(versions('this release'), [String(newProtocol)], `this release's cluster speaks Sb-Protocol ${newProtocol}`);
    for (const [name, seen] of onTheWire) assert.deepEqual([...seen.keys()].filter((v) => v !== String(oldProtocol) && v !== String(newProtocol)), [], `${name}: a version neither release speaks`);

    const wire = [...onTheWire].map(([name, seen]) => `${name} ${[...seen].map(([v, n]) => `v${v}×${n}`).join(' ')}`).join('; ');
    console.log(
      `rolling upgrade ${previous.tag} (Sb-Protocol ${oldProtocol}) → main (Sb-Protocol ${newProtocol}): its cluster started in ${Math.round(startedIn / 1000)} s, rolled in ${Math.round((Date.now() - started) / 1000)} s; ` +
        `${load.webhooks.size} webhooks and ${load.sends.size} sends acknowledged (of ${load.attemptedSends.size} sends tried), each stored once, each send at the provider once; ` +
        `longest dark per phase: ${darkest.map((d) => `${d.phase} ${d.ms} ms`).join(', ')} (bound ${FAILOVER_MS} ms, lease TTL ${LEASE_TTL_MS} ms); ` +
        `replaced (new one started in (a gateway: 0, it started before the load), old one stopped in, every agent answered after its SIGTERM in): ${replaced.map((r) => `${r.name} ${r.startMs}/${r.stopMs}/${r.servedAgainMs} ms`).join(', ')}; on the wire: ${wire}; ` +
        `the longest gaps' failed probes: ${JSON.stringify([...probes.darkest].filter(([, d]) => d.ms > LEASE_TTL_MS))}`,
    );
  });
});
