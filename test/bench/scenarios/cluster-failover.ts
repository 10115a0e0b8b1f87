import type { ChildServer } from '../children.js';
import type { BenchContext, Measurement, PacedRequest } from '../types.js';
import type { WebhookSource } from './ingest.js';

/** An agent of the failover load: its client token and its signed webhooks. */
export interface FailoverAgent {
  readonly token: string;
  readonly webhooks: WebhookSource;
}

/** How long an agent may go without an acknowledged request before it counts as cut off. */
const CUT_OFF_MS = 1_000;

/**
 * The failover gap: a steady paced load (signed webhooks and sends in turn, every agent in turn)
 * through the gateway while `victim` is killed with SIGKILL a quarter into the measured window. For
 * each agent, the longest time between two acknowledged requests (the window's start counts as one)
 * is the time it was not served; the row reports the longest over all agents, how many agents were
 * cut off for over a second, and the requests that failed or got no answer (a request the dead node
 * held is not acknowledged). The window lasts at least `minSeconds`, so that the gap fits in it.
 */
export async function measureFailover(
  ctx: BenchContext,
  target: {
    url: string;
    agents: readonly FailoverAgent[];
    /** Which agents the victim serves (by the cluster's placement), to tell its agents' gap from the others'. */
    onVictim: (agent: number) => boolean;
    rate: number;
    victim: ChildServer;
    minSeconds: number;
    label: string;
  },
): Promise<Measurement & { readonly longestGapMs: number; readonly servedAgainMs: number }> {
  const { agents } = target;
  const agentOf = new WeakMap<PacedRequest, number>();
  const acks: number[][] = agents.map(() => []);
  let turn = 0;
  let windowStart = 0;
  let killedAt = 0;
  let killTimer: NodeJS.Timeout | undefined;
  const durationSeconds = Math.max(ctx.durationSeconds, target.minSeconds);
  const measured = await ctx.paced({
    label: target.label,
    url: target.url,
    rate: target.rate,
    durationSeconds,
    next() {
      const agent = Math.floor(turn / 2) % agents.length;
      const isSend = turn++ % 2 === 1;
      const { token, webhooks } = agents[agent]!;
      const request: PacedRequest = isSend
        ? {
            method: 'POST',
            path: '/api/v1/send-message',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ channel: 'sms', to: '+14155550123', body: `failover ${turn}` }),
          }
        : { method: 'POST', path: '/', ...webhooks() };
      agentOf.set(request, agent);
      return request;
    },
    onResponse(status, request, endedAt) {
      if (windowStart && status === 200) acks[agentOf.get(request)!]!.push(endedAt);
    },
    beforeWindow() {
      windowStart = performance.now();
      killTimer = setTimeout(() => {
        killedAt = performance.now();
        ctx.log(`kill -9 ${target.victim.name} (pid ${target.victim.pid})`);
        process.kill(target.victim.pid, 'SIGKILL');
      }, (durationSeconds * 1000) / 4);
    },
  });
  clearTimeout(killTimer);
  const windowEnd = windowStart + measured.durationSeconds * 1000;
  const gaps = acks.map((times) => {
    const sorted = [windowStart, ...times.filter((t) => t <= windowEnd).sort((a, b) => a - b)];
    let longest = { ms: 0, from: windowStart };
    for (let i = 1; i < sorted.length; i++) if (sorted[i]! - sorted[i - 1]! > longest.ms) longest = { ms: sorted[i]! - sorted[i - 1]!, from: sorted[i - 1]! };
    return longest;
  });
  const worst = Math.max(...gaps.map((g) => g.ms));
  // From the kill to each agent's first acknowledged request after it (which waits up to one spacing for the agent's next request).
  const servedAgain = Math.max(...acks.map((times) => Math.min(...times.filter((t) => t > killedAt)) - killedAt));
  const worstAgent = gaps.findIndex((g) => g.ms === worst);
  const cutOff = gaps.filter((g) => g.ms > CUT_OFF_MS).length;
  const victims = gaps.filter((_, i) => target.onVictim(i)).map((g) => g.ms);
  const others = gaps.filter((_, i) => !target.onVictim(i)).map((g) => g.ms);
  const range = (ms: number[]) => (ms.length ? `${fmt(Math.min(...ms))}–${fmt(Math.max(...ms))} ms` : 'none');
  const spacing = (agents.length * 1000) / target.rate;
  const failed = Object.values(measured.non2xx).reduce((a, b) => a + b, 0);
  const summary =
    `longest time an agent had no acknowledged request: ${fmt(worst)} ms (agent ${worstAgent}, from ${fmt(gaps[worstAgent]!.from - killedAt)} ms after the kill); ` +
    `every agent served again ≤ ${fmt(servedAgain)} ms after the kill; ` +
    `${cutOff} of ${agents.length} agents went over ${CUT_OFF_MS} ms without one; ` +
    `longest gaps of the ${victims.length} agents ${target.victim.name} served ${range(victims)}, of the other ${others.length} ${range(others)}; ` +
    `kill -9 of ${target.victim.name} ${fmt((killedAt - windowStart) / 1000)} s into a ${durationSeconds} s window at ${target.rate}/s (webhooks and sends in turn; each agent's requests ${fmt(spacing)} ms apart); ` +
    `${failed} refused, ${measured.socketErrors} without an answer in 10 s`;
  ctx.log(`failover: ${summary}`);
  return { ...measured, notes: summary, longestGapMs: worst, servedAgainMs: servedAgain };
}

const fmt = (n: number) => (Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));
