import type { Runtime } from '@switchboard/runtime';
import type { HealthResult } from '@switchboard/sdk';

export interface Alert {
  level: 'info' | 'warning' | 'critical';
  message: string;
  at: string;
}

interface Totals {
  actions: number;
  cost: number;
}

const DAYS = 14;

function dayStart(offsetDays = 0): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - offsetDays));
}

function monthStart(): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

const COST = 'COALESCE(provider_cost, tariff_cost)';

async function totals(runtime: Runtime, since: Date, agentId?: string): Promise<Totals> {
  const where = agentId ? 'created_at >= ? AND agent_id = ?' : 'created_at >= ?';
  const params = agentId ? [since.toISOString(), agentId] : [since.toISOString()];
  const row = await runtime.store.db.get<{ n: number | null; cost: number | null }>(
    `SELECT COUNT(*) AS n, SUM(${COST}) AS cost FROM usage_records WHERE ${where}`,
    params,
  );
  return { actions: Number(row?.n ?? 0), cost: round(Number(row?.cost ?? 0)) };
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;

/** Usage of today and this month (UTC), overall or for one agent. */
export async function usageTotals(runtime: Runtime, agentId?: string): Promise<{ today: Totals; month: Totals }> {
  return { today: await totals(runtime, dayStart(), agentId), month: await totals(runtime, monthStart(), agentId) };
}

/** What the dashboard shows: counts, usage, alerts and the series its charts draw. */
export async function dashboard(runtime: Runtime, providerChecks: Record<string, HealthResult | null>) {
  const { db } = runtime.store;
  const agents = await runtime.store.agents.list();
  const usage = await usageTotals(runtime);
  const pending = await runtime.store.deadLetters.countPending();
  const pools = await runtime.store.pools.counts();
  const since = dayStart(DAYS - 1).toISOString();
  const rows = await db.query<{ day: string; n: number; cost: number | null }>(
    `SELECT SUBSTR(created_at, 1, 10) AS day, COUNT(*) AS n, SUM(${COST}) AS cost FROM usage_records WHERE created_at >= ? GROUP BY SUBSTR(created_at, 1, 10)`,
    [since],
  );
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const days = Array.from({ length: DAYS }, (_, i) => {
    const date = dayStart(DAYS - 1 - i).toISOString().slice(0, 10);
    const row = byDay.get(date);
    return { date, actions: Number(row?.n ?? 0), cost: round(Number(row?.cost ?? 0)) };
  });
  const today = dayStart().toISOString();
  const channelRows = await db.query<{ channel: string; n: number; cost: number | null }>(
    `SELECT channel, COUNT(*) AS n, SUM(${COST}) AS cost FROM usage_records WHERE created_at >= ? GROUP BY channel`,
    [today],
  );
  const channelsToday = Object.fromEntries(channelRows.map((r) => [r.channel, { actions: Number(r.n), cost: round(Number(r.cost ?? 0)) }]));
  const directionRows = await db.query<{ direction: string; n: number }>(
    'SELECT direction, COUNT(*) AS n FROM messages WHERE created_at >= ? GROUP BY direction',
    [today],
  );
  const messagesToday = { inbound: 0, outbound: 0 };
  for (const r of directionRows) if (r.direction === 'inbound' || r.direction === 'outbound') messagesToday[r.direction] = Number(r.n);

  const now = new Date().toISOString();
  const alerts: Alert[] = [];
  for (const [kind, check] of Object.entries(providerChecks)) {
    if (check && !check.ok) alerts.push({ level: 'critical', message: `The ${kind} provider is failing: ${check.message}`, at: now });
  }
  for (const [pool, { total, free }] of Object.entries(pools)) {
    if (total > 0 && free === 0) alerts.push({ level: 'critical', message: `The ${pool} pool is empty: new agents cannot get a ${pool} address.`, at: now });
    else if (total > 0 && free <= Math.max(1, Math.floor(total / 10))) alerts.push({ level: 'warning', message: `The ${pool} pool is nearly empty: ${free} of ${total} free.`, at: now });
  }
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  const failedCallbacks = await db.get<{ n: number }>(
    "SELECT COUNT(*) AS n FROM dead_letters WHERE created_at >= ? AND reason = 'callback_failed'",
    [hourAgo],
  );
  if (Number(failedCallbacks?.n ?? 0) > 0) {
    alerts.push({ level: 'warning', message: `${failedCallbacks!.n} callback delivery(ies) failed in the last hour; check the agents' callback URLs.`, at: now });
  }
  const daySpend = runtime.settings.LIMIT_SPEND_PER_DAY_USD;
  if (daySpend > 0) {
    const spenders = await db.query<{ agent_id: string; cost: number }>(
      `SELECT agent_id, SUM(${COST}) AS cost FROM usage_records WHERE created_at >= ? GROUP BY agent_id`,
      [today],
    );
    for (const s of spenders) {
      const share = Number(s.cost) / daySpend;
      if (share >= 1) alerts.push({ level: 'critical', message: `Agent ${s.agent_id} hit its daily spend limit ($${daySpend}).`, at: now });
      else if (share >= 0.8) alerts.push({ level: 'warning', message: `Agent ${s.agent_id} used ${Math.round(share * 100)}% of its daily spend limit.`, at: now });
    }
  }
  if (pending > 0) alerts.push({ level: 'info', message: `${pending} dead letter(s) wait to be collected.`, at: now });
  return {
    agents: { total: agents.length, active: agents.filter((a) => a.status === 'active').length },
    usage,
    deadLetters: { pending },
    calls: { active: runtime.voice.sessions.size },
    alerts,
    pools,
    series: { days, channelsToday, messagesToday },
  };
}
