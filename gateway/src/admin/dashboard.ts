import type { DashboardFigures, GatewayPorts } from '@switchboard/runtime';
import type { HealthResult } from '@switchboard/sdk';

export interface Alert {
  level: 'info' | 'warning' | 'critical';
  message: string;
  at: string;
}

/** What the dashboard shows: counts, usage, the series its charts draw, and alerts judged from them and the providers' checks. */
export async function dashboard(ports: Pick<GatewayPorts, 'admin' | 'settings' | 'voice'>, providerChecks: Record<string, HealthResult | null>) {
  const figures = await ports.admin.reads.dashboard();
  const { agents, usage, deadLetters, pools, series } = figures;
  return {
    agents,
    usage,
    deadLetters,
    calls: { active: ports.voice.liveCalls },
    alerts: alerts(figures, providerChecks, ports.settings.LIMIT_SPEND_PER_DAY_USD),
    pools,
    series,
    refusals: { today: figures.refusalsToday },
  };
}

function alerts(figures: DashboardFigures, providerChecks: Record<string, HealthResult | null>, daySpend: number): Alert[] {
  const at = new Date().toISOString();
  const list: Alert[] = [];
  const add = (level: Alert['level'], message: string) => list.push({ level, message, at });
  for (const [kind, check] of Object.entries(providerChecks)) {
    if (check && !check.ok) add('critical', `The ${kind} provider is failing: ${check.message}`);
  }
  for (const [pool, { total, free }] of Object.entries(figures.pools)) {
    // Email addresses are minted from EMAIL_DOMAIN for each agent, never drawn from free entries.
    if (pool === 'email') continue;
    if (total > 0 && free === 0) add('critical', `The ${pool} pool is empty: new agents cannot get ${article(pool)} ${pool} address.`);
    else if (total > 0 && free <= Math.max(1, Math.floor(total / 10))) add('warning', `The ${pool} pool is nearly empty: ${free} of ${total} free.`);
  }
  const failed = figures.failedCallbacksLastHour;
  if (failed > 0) add('warning', `${count(failed, 'callback delivery', 'callback deliveries')} failed in the last hour; check the agents' callback URLs.`);
  for (const { agentId, url, disabledAt } of figures.disabledCallbacks) {
    add(
      'critical',
      `Callbacks to agent ${agentId} are disabled since ${disabledAt}: ${url} kept failing. Its events go to dead letters; fix the endpoint, then replay from the delivery log or set a new callback URL.`,
    );
  }
  if (daySpend > 0) {
    for (const { agentId, cost } of figures.spendToday) {
      const share = cost / daySpend;
      if (share >= 1) add('critical', `Agent ${agentId} hit its daily spend limit ($${daySpend}).`);
      else if (share >= 0.8) add('warning', `Agent ${agentId} used ${Math.round(share * 100)}% of its daily spend limit.`);
    }
  }
  const pending = figures.deadLetters.pending;
  if (pending > 0) add('info', `${count(pending, 'dead letter')} ${pending === 1 ? 'waits' : 'wait'} to be collected.`);
  return list;
}

/** "1 dead letter", "3 dead letters". */
function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}
