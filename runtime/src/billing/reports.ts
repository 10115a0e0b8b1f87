import type { StoredLimits } from '../limits/stored-limits.js';
import type { Limits } from '../limits/limits.js';
import { LIMIT_NAMES } from '../protocol/operations.js';
import { UsageLedger } from '../limits/usage-ledger.js';
import type { Store } from '../store/store.js';
import { periodStart, type Period } from './periods.js';
import { round4 } from './tariffs.js';

type Row = Awaited<ReturnType<Store['usage']['summarise']>>[number];

interface ChannelUsage {
  messages: number;
  calls: number;
  callSeconds: number;
  cost: number;
}

/** Usage and billing summaries computed from usage records. */
export class UsageReports {
  constructor(
    private readonly store: Store,
    private readonly limiter: Pick<StoredLimits, 'limitsOf'>,
    private readonly globalMarkup: () => Promise<number>,
  ) {}

  /** The contract's usage answer for one agent, or (agentId undefined) all agents summed and listed. */
  async usage(agentId: string | undefined, period: Period) {
    const rows = await this.store.usage.summarise(periodStart(period), agentId);
    if (agentId !== undefined) {
      const { totals, byChannel } = summarise(rows);
      const limits = await this.limiter.limitsOf(agentId);
      return { agentId, period, totals, byChannel, limits, remaining: await this.#remaining(agentId, limits) };
    }
    const { totals, byChannel } = summarise(rows);
    const agents = [...new Set(rows.map((r) => r.agentId))].map((id) => ({ agentId: id, ...summarise(rows.filter((r) => r.agentId === id)) }));
    return { agentId: null, period, totals, byChannel, limits: {}, remaining: {}, agents };
  }

  /** The contract's billing answer: provider cost, markup and billed cost, by channel. */
  async billing(agentId: string | undefined, period: Period) {
    const rows = await this.store.usage.summarise(periodStart(period), agentId);
    if (agentId !== undefined) return { agentId, period, ...(await this.#bill(rows, await this.#markupOf(agentId))) };
    const ids = [...new Set(rows.map((r) => r.agentId))];
    const agents = await Promise.all(ids.map(async (id) => ({ agentId: id, ...(await this.#bill(rows.filter((r) => r.agentId === id), await this.#markupOf(id))) })));
    const providerCost = round4(agents.reduce((s, a) => s + a.providerCost, 0));
    const billedCost = round4(agents.reduce((s, a) => s + a.billedCost, 0));
    const byChannel: Record<string, { count: number; providerCost: number; billedCost: number }> = {};
    for (const a of agents) {
      for (const [channel, c] of Object.entries(a.byChannel)) {
        const into = (byChannel[channel] ??= { count: 0, providerCost: 0, billedCost: 0 });
        into.count += c.count;
        into.providerCost = round4(into.providerCost + c.providerCost);
        into.billedCost = round4(into.billedCost + c.billedCost);
      }
    }
    return { agentId: null, period, providerCost, markupPercent: await this.globalMarkup(), billedCost, byChannel, agents };
  }

  async #markupOf(agentId: string): Promise<number> {
    return (await this.store.limits.get(agentId)).markupPercent ?? (await this.globalMarkup());
  }

  async #bill(rows: Row[], markupPercent: number) {
    const byChannel: Record<string, { count: number; providerCost: number; billedCost: number }> = {};
    for (const r of rows) {
      const into = (byChannel[r.channel] ??= { count: 0, providerCost: 0, billedCost: 0 });
      into.count += r.count;
      into.providerCost += r.cost;
    }
    for (const c of Object.values(byChannel)) {
      c.providerCost = round4(c.providerCost);
      c.billedCost = round4(c.providerCost * (1 + markupPercent / 100));
    }
    const providerCost = round4(Object.values(byChannel).reduce((s, c) => s + c.providerCost, 0));
    const billedCost = round4(Object.values(byChannel).reduce((s, c) => s + c.billedCost, 0));
    return { providerCost, markupPercent, billedCost, byChannel };
  }

  /** What is left of each limit in its current window (null where there is no limit). */
  async #remaining(agentId: string, limits: Limits): Promise<Record<string, number | null>> {
    const t = await this.store.usage.totalsSince(agentId, UsageLedger.windowStarts());
    const used: Record<(typeof LIMIT_NAMES)[number], number> = {
      actionsPerMinute: t.minute!.actions,
      actionsPerHour: t.hour!.actions,
      actionsPerDay: t.day!.actions,
      spendPerDay: t.day!.spend,
      spendPerMonth: t.month!.spend,
      callsPerDayToSameNumber: 0,
    };
    return Object.fromEntries(LIMIT_NAMES.map((name) => [name, limits[name] === null ? null : round4(Math.max(0, limits[name]! - used[name]))]));
  }
}

function summarise(rows: readonly Row[]): { totals: ChannelUsage; byChannel: Record<string, ChannelUsage> } {
  const byChannel: Record<string, ChannelUsage> = {};
  const totals: ChannelUsage = { messages: 0, calls: 0, callSeconds: 0, cost: 0 };
  for (const r of rows) {
    const into = (byChannel[r.channel] ??= { messages: 0, calls: 0, callSeconds: 0, cost: 0 });
    if (r.action === 'message') into.messages += r.count;
    if (r.action === 'call_minute') {
      into.calls += r.count;
      into.callSeconds += Math.round(r.quantity * 60);
    }
    into.cost += r.cost;
  }
  for (const c of Object.values(byChannel)) {
    c.cost = round4(c.cost);
    totals.messages += c.messages;
    totals.calls += c.calls;
    totals.callSeconds += c.callSeconds;
    totals.cost = round4(totals.cost + c.cost);
  }
  return { totals, byChannel };
}
