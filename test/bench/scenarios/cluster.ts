import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { partitionOf, preferredOwner } from '@switchboard/runtime/internal';
import { startCluster } from '../cluster-processes.js';
import { cpuPerUnit, startGroupWindow, untilQuiet } from '../cpu.js';
import { startLiveGateway } from '../live-gateway.js';
import type { BenchContext, CpuPart, CpuProbe, Measurement, Scenario } from '../types.js';
import { provisionBenchAgent, storedMessageCount } from './bench-agent.js';
import { measureFailover } from './cluster-failover.js';
import { agentsWebhooks, measureIngest } from './ingest.js';
import { measureSend } from './send.js';

/** Agents the load is spread over: enough that each of two runtime nodes holds some (32 partitions, rendezvous hashing). */
const AGENTS = 16;
const RUNTIME_NODES = 2;
/** The failover window: the lease TTL (3 s by default) plus a renewal period must fit after the kill with room to spare. */
const FAILOVER_MIN_SECONDS = 12;
/** Long enough for a steady reading: CPU time is counted in 10 ms ticks, a third of a percent of a 3 s window. */
const IDLE_SECONDS = 10;
/** Two lease TTLs at the default CLUSTER_LEASE_TTL_MS (3 s): start-up's hand-overs are over by then. */
const PLACEMENT_SETTLES_MS = 6_000;
/**
 * Sends answered before either send window opens, embedded and clustered alike. Each runtime node
 * compiles the send path itself, on half the sends: after 2 s (~400 sends) V8's compiler threads were
 * 25–38 % of the nodes' CPU inside the window (perf), which measured the warm-up, not the steady state.
 */
const SEND_WARMUP = 2_000;

const PHONE_NUMBERS = Array.from({ length: AGENTS }, (_, i) => `+1202555${String(100 + i).padStart(4, '0')}`);

interface Provisioned {
  readonly agentId: string;
  readonly address: string;
  readonly token: string;
}

/**
 * The same ingest and send load against embedded mode (one process, SQLite) and a cluster of one
 * gateway and two runtime nodes (NATS, PostgreSQL), in one run, with the CPU each message costs
 * every process; then the failover gap of the cluster under a steady load when a node is killed.
 */
export const cluster: Scenario = {
  name: 'cluster',
  description:
    'Ingest and send through 1 gateway + 2 runtime nodes (NATS, PostgreSQL) vs embedded mode in the same run, CPU per message by process; then kill -9 of a runtime node under a paced load: the failover gap.',
  async run(ctx) {
    const embedded = await measureEmbedded(ctx);
    const clustered = await measureCluster(ctx);
    const compared = clustered.rows.map((row, i) => withRatio(ctx, row, embedded[i]!));
    return [...embedded, ...compared, clustered.failover];
  },
};

async function measureEmbedded(ctx: BenchContext): Promise<Measurement[]> {
  ctx.log('embedded: live mode, the simulator in its own process');
  const gateway = await startLiveGateway(ctx, { name: 'cluster-embedded', env: { POOL_PHONE_NUMBERS: PHONE_NUMBERS.join(',') } });
  try {
    const agents = await provisionAgents(gateway, 'emb');
    const parts: CpuPart[] = [{ whose: 'switchboard', pids: () => [gateway.pid] }];
    const settled = async () => void (await untilQuiet(parts));
    const { full, paced } = await measureIngest(ctx, {
      url: gateway.url,
      labelPrefix: 'embedded: ',
      webhooks: agentsWebhooks(gateway.sim.credentials.twilio as { accountSid: string; authToken: string }, gateway.url, agents),
      cpu: { pid: gateway.pid, unit: 'webhook' },
      settled,
      stored: async () => (await Promise.all(agents.map((a) => storedMessageCount(gateway, a.token, 'sms')))).reduce((x, y) => x + y, 0),
    });
    const send = await measureSend(ctx, { url: gateway.url, labelPrefix: 'embedded: ', tokens: agents.map((a) => a.token), cpu: { pid: gateway.pid, unit: 'send' }, settled, warmupResponses: SEND_WARMUP });
    return [full, paced, send];
  } finally {
    // Stopped before the cluster starts, so that the two do not share the machine.
    await gateway.stop();
  }
}

async function measureCluster(ctx: BenchContext): Promise<{ rows: Measurement[]; failover: Measurement }> {
  const cluster = await startCluster(ctx, { runtimeNodes: RUNTIME_NODES, phoneNumbers: PHONE_NUMBERS });
  const agents = await provisionAgents(cluster, 'clu');
  // Idle is the steady state: the window opens once start-up's tail (partitions taken, fences written) is over.
  // A partition its preferred node has not taken is left to it for a lease TTL before another takes it, so
  // placement may still move after the processes first go quiet (a snoop on NATS saw 15 partitions change
  // hands inside one idle window): two TTLs from here, then quiet again.
  await new Promise((r) => setTimeout(r, PLACEMENT_SETTLES_MS));
  await untilQuiet(cluster.cpuParts);
  const idle = await idleShares(cluster.cpuParts);
  ctx.log(`cluster: idle for ${IDLE_SECONDS} s, CPU as a share of a core: ${idle}`);
  const credentials = cluster.sim.credentials.twilio as { accountSid: string; authToken: string };
  const probe = (unit: string): CpuProbe => ({ parts: cluster.cpuParts, unit, whose: 'cluster' });
  const settled = async () => void (await untilQuiet(cluster.cpuParts));
  const ids = agents.map((a) => a.agentId);
  const count = async (sql: string, params?: unknown[]) => Number((await cluster.query<{ n: string }>(sql, params))[0]!.n);
  const transactions = async () => {
    // A PostgreSQL 15 backend publishes its counters when idle, at most once a second.
    await new Promise((r) => setTimeout(r, 1_500));
    snapshotPgTrace(`${++snapshots}`);
    return count('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()');
  };
  let snapshots = 0;
  const ingestStart = await transactions();
  const { full, paced } = await measureIngest(ctx, {
    url: cluster.url,
    labelPrefix: 'cluster: ',
    webhooks: agentsWebhooks(credentials, cluster.url, agents),
    cpu: probe('webhook'),
    settled,
    stored: () => count("SELECT count(*) AS n FROM messages WHERE direction = 'inbound' AND agent_id = ANY($1)", [ids]),
  });
  const pending = await count("SELECT count(*) AS n FROM messages m WHERE m.delivery = 'pending' AND NOT EXISTS (SELECT 1 FROM dead_letters d WHERE d.message_id = m.id)");
  const inbound = await count("SELECT count(*) AS n FROM messages WHERE direction = 'inbound'");
  const sendStart = await transactions();
  const perWebhook = `PostgreSQL transactions per stored webhook ${((sendStart - ingestStart) / inbound).toFixed(1)} (both runs and warm-ups); ${pending} still waiting for delivery afterwards`;
  ctx.log(`cluster: ${perWebhook}`);
  const send = await measureSend(ctx, { url: cluster.url, labelPrefix: 'cluster: ', tokens: agents.map((a) => a.token), cpu: probe('send'), settled, warmupResponses: SEND_WARMUP });
  const outbound = await count("SELECT count(*) AS n FROM messages WHERE direction = 'outbound'");
  const sendTransactions = (await transactions()) - sendStart;
  const perSend = `PostgreSQL transactions per stored send ${(sendTransactions / outbound).toFixed(1)} (incl. warm-up and status callbacks)`;
  ctx.log(`cluster: ${perSend}`);
  // A steady load well under what the cluster takes, so that the gap is the failover and not a queue.
  const rate = Math.max(40, Math.round(Math.min(full.rate, send.rate) / 4));
  const victim = cluster.nodes[0]!;
  const nodeIds = cluster.nodes.map((n) => n.name);
  const failover = await measureFailover(ctx, {
    label: `cluster: failover, kill -9 of a runtime node`,
    url: cluster.url,
    agents: agents.map((a) => ({ token: a.token, webhooks: agentsWebhooks(credentials, cluster.url, [a]) })),
    rate,
    victim,
    // Where the settled cluster places each agent: its partition's preferred node among the live ones.
    onVictim: (i) => preferredOwner(partitionOf(agents[i]!.agentId), nodeIds) === victim.name,
    minSeconds: FAILOVER_MIN_SECONDS,
  });
  return {
    rows: [{ ...full, notes: `${full.notes}; ${perWebhook}; idle cluster before the load: ${idle} of a core` }, paced, { ...send, notes: `${send.notes}; ${perSend}` }],
    failover,
  };
}

/**
 * With `BENCH_PG_TRACE=<dir>`, copies the servers' transaction counts (see pg-trace.mjs) as they are
 * now into `<dir>/<name>/`: the phases' shapes are the differences between snapshots.
 */
function snapshotPgTrace(name: string): void {
  const dir = process.env.BENCH_PG_TRACE;
  if (!dir) return;
  mkdirSync(join(dir, name), { recursive: true });
  for (const file of readdirSync(dir)) if (file.endsWith('.json')) copyFileSync(join(dir, file), join(dir, name, file));
}

/** What the cluster costs with no load (lease renewals, consumers waiting for work), as shares of a core. */
async function idleShares(parts: readonly CpuPart[]): Promise<string> {
  const window = startGroupWindow(parts, 'second', 'cluster');
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  const cpu = window.end(0);
  const share = (c: { cpuSeconds: number }) => `${((c.cpuSeconds / cpu.windowSeconds) * 100).toFixed(1)} %`;
  return `${cpu.parts!.map((p) => `${p.whose} ${share(p)}`).join(', ')} (all ${share(cpu)})`;
}

async function provisionAgents(target: { url: string; orchestratorToken: string }, prefix: string): Promise<Provisioned[]> {
  const run = randomBytes(3).toString('hex');
  const agents: Provisioned[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const agentId = `${prefix}-${run}-${i}`;
    const agent = await provisionBenchAgent(target, agentId, ['sms']);
    agents.push({ agentId, address: agent.channels.sms!.address, token: agent.securityToken });
  }
  return agents;
}

/** The cluster row with its rate and CPU per unit as ratios to the embedded row of the same load. */
function withRatio(ctx: BenchContext, row: Measurement, embedded: Measurement): Measurement {
  const rate = row.rate / embedded.rate;
  const cpu = row.cpu && embedded.cpu ? (cpuPerUnit(row.cpu) ?? NaN) / (cpuPerUnit(embedded.cpu) ?? NaN) : NaN;
  const ratios = `cluster/embedded: rate ${rate.toFixed(2)}, CPU per ${row.cpu?.unit ?? 'unit'} ${cpu.toFixed(2)}`;
  ctx.log(`${row.label}: ${ratios}`);
  return { ...row, notes: [ratios, row.notes].filter(Boolean).join('; ') };
}
