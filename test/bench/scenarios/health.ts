import type { Scenario } from '../types.js';

/** The full request pipeline (routing, auth check, metrics, JSON) on a trivial public route. */
export const health: Scenario = {
  name: 'health',
  description: 'GET /health on the real server: the whole request pipeline on a trivial route.',
  target: { description: '≥ 50 % of bare uWS, p99 ≤ 10 ms, no errors', minRatioToUws: 0.5, maxP99Ms: 10 },
  async run(ctx) {
    const gateway = await ctx.gateway();
    return [await ctx.load({ label: 'health', url: `${gateway.url}/health`, cpu: { pid: gateway.pid, unit: 'request' } })];
  },
};
