import { randomBytes } from 'node:crypto';
import { partitionOf, preferredOwner } from '@switchboard/runtime/internal';
import { startCluster } from '../cluster-processes.js';
import type { Scenario } from '../types.js';
import { provisionBenchAgent } from './bench-agent.js';
import { measureFailover } from './cluster-failover.js';
import { agentsWebhooks } from './ingest.js';

const AGENTS = 12;
const RUNTIME_NODES = 3;
const PHONE_NUMBERS = Array.from({ length: AGENTS }, (_, i) => `+1202555${String(300 + i).padStart(4, '0')}`);
/** Each run's window: the kill comes a quarter into it, and the gap must fit after it. */
const MIN_SECONDS = 4;
/** Paced load: each agent's requests 300 ms apart, well under what the cluster takes. */
const RATE = 40;
/** What every run must stay under (issue 34): every agent served again within a second of the kill. */
const GOAL_MS = 1_000;

/**
 * kill -9 of a runtime node under a paced load, `BENCH_FAILOVER_RUNS` times (20 by default), each of
 * three nodes in turn and started again after its run: the longest time an agent went unserved per
 * run, with the nodes hearing the NATS server's disconnect advisories (a system account, as
 * deploy/nats sets up), so that a crash is noticed when its connection closes rather than at the
 * lease's expiry. The row gives the runs' median and maximum against the one-second goal.
 */
export const failover: Scenario = {
  name: 'failover',
  description: `kill -9 of a runtime node under a paced load, BENCH_FAILOVER_RUNS times (20 by default), each node in turn and restarted: the failover gap per run (disconnect advisories on), its median and maximum against ${GOAL_MS} ms.`,
  async run(ctx) {
    const runs = Number(process.env.BENCH_FAILOVER_RUNS ?? 20);
    const cluster = await startCluster(ctx, { runtimeNodes: RUNTIME_NODES, phoneNumbers: PHONE_NUMBERS, advisories: true });
    const prefix = `fo-${randomBytes(3).toString('hex')}`;
    const agents: { agentId: string; token: string; address: string }[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const agentId = `${prefix}-${i}`;
      const agent = await provisionBenchAgent(cluster, agentId, ['sms']);
      agents.push({ agentId, token: agent.securityToken, address: agent.channels.sms!.address });
    }
    const credentials = cluster.sim.credentials.twilio as { accountSid: string; authToken: string };
    const gaps: number[] = [];
    const served: number[] = [];
    let last;
    for (let run = 0; run < runs; run++) {
      const victim = cluster.nodes[run % RUNTIME_NODES]!;
      const nodeIds = cluster.nodes.map((n) => n.name);
      last = await measureFailover(ctx, {
        label: `failover: kill -9 of a runtime node, ${runs} runs`,
        url: cluster.url,
        agents: agents.map((a) => ({ token: a.token, webhooks: agentsWebhooks(credentials, cluster.url, [a]) })),
        rate: RATE,
        victim,
        onVictim: (i) => preferredOwner(partitionOf(agents[i]!.agentId), nodeIds) === victim.name,
        minSeconds: MIN_SECONDS,
      });
      gaps.push(last.longestGapMs);
      served.push(last.servedAgainMs);
      ctx.log(`failover run ${run + 1}/${runs}: ${victim.name} killed, every agent served again ≤ ${Math.round(last.servedAgainMs)} ms after, longest gap ${Math.round(last.longestGapMs)} ms`);
      await cluster.restartNode(victim.name);
      // Back in the cluster and holding its share again before the next kill (a lease TTL and a renewal period).
      await new Promise((r) => setTimeout(r, 4_000));
    }
    const median = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;
    const round = (ms: number[]) => ms.map((m) => Math.round(m)).join(', ');
    const over = served.filter((ms) => ms > GOAL_MS).length;
    const notes =
      `${runs} runs: every agent served again after the kill within median ${Math.round(median(served))} ms, max ${Math.round(Math.max(...served))} ms (each agent's next request comes up to ${Math.round((AGENTS * 1000) / RATE)} ms later); ` +
      `${over} of ${runs} runs over ${GOAL_MS} ms (goal: none); longest time an agent went without an acknowledged request median ${Math.round(median(gaps))} ms, max ${Math.round(Math.max(...gaps))} ms; ` +
      `per run, served again: ${round(served)} ms; longest gap: ${round(gaps)} ms`;
    ctx.log(`failover: ${notes}`);
    return [{ ...last!, notes }];
  },
};
