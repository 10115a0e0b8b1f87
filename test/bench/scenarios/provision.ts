import { randomBytes } from 'node:crypto';
import type { Scenario } from '../types.js';

/**
 * POST /api/v1/provision with a new agentId per request. Only the email channel is asked for: its
 * address is made from the agent id, whereas the demo phone and LINE pools hold 100 and 20 entries
 * and would run dry within a second.
 */
export const provision: Scenario = {
  name: 'provision',
  description: 'POST /api/v1/provision with a unique agentId per request, channels ["email"] (a durable write per request).',
  target: { description: '≥ 200 agents/s, p99 ≤ 250 ms, no errors', minRate: 200, maxP99Ms: 250 },
  async run(ctx) {
    const gateway = await ctx.gateway();
    const teamToken = await gateway.teamToken();
    const run = randomBytes(4).toString('hex');
    let next = 0;
    const measurement = await ctx.load({
      label: 'provision (email)',
      url: gateway.url,
      cpu: { pid: gateway.pid, unit: 'agent' },
      requests: [
        {
          method: 'POST',
          path: '/api/v1/provision',
          headers: { authorization: `Bearer ${teamToken}`, 'content-type': 'application/json' },
          setupRequest(request) {
            const agentId = `bench-${run}-${(next += 1)}`;
            return { ...request, body: JSON.stringify({ agentId, displayName: agentId, channels: ['email'] }) };
          },
        },
      ],
    });
    return [{ ...measurement, notes: `${next.toLocaleString('en-US')} agents provisioned (incl. warm-up)` }];
  },
};
