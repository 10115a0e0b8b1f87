import { randomBytes } from 'node:crypto';
import { startLiveGateway } from '../live-gateway.js';
import type { Scenario } from '../types.js';
import { provisionBenchAgent } from './bench-agent.js';

/**
 * POST /api/v1/send-message (sms) with a client token: limits admitted, message and usage stored,
 * then the real twilio SDK calls the simulator (in a process of its own, as Twilio is remote), which
 * also posts two signed status callbacks back per message.
 */
export const send: Scenario = {
  name: 'send',
  description: 'POST /api/v1/send-message (sms) through the real twilio SDK to the simulator in its own process.',
  target: { description: '≥ 10,000 req/s', minRate: 10_000 },
  async run(ctx) {
    const gateway = await startLiveGateway(ctx, { name: 'send' });
    const agentId = `send-${randomBytes(3).toString('hex')}`;
    const agent = await provisionBenchAgent(gateway, agentId, ['sms']);
    let n = 0;
    const measurement = await ctx.load({
      label: 'send-message (sms)',
      url: gateway.url,
      requests: [
        {
          method: 'POST',
          path: '/api/v1/send-message',
          headers: { authorization: `Bearer ${agent.securityToken}`, 'content-type': 'application/json' },
          setupRequest(req) {
            n += 1;
            return { ...req, body: JSON.stringify({ channel: 'sms', to: '+14155550123', body: `Bench message ${n}` }) };
          },
        },
      ],
    });
    return [{ ...measurement, notes: `${n.toLocaleString('en-US')} sends issued (incl. warm-up)` }];
  },
};
