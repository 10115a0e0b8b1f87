import { randomBytes } from 'node:crypto';
import { BaseUrlRequestClient } from '@switchboard/driver-twilio';
import twilio from 'twilio';
import { startCpuWindow } from '../cpu.js';
import { startLiveGateway, startSimulatorProcess } from '../live-gateway.js';
import { quantileMs } from '../paced.js';
import type { BenchContext, CpuProbe, Measurement, Scenario } from '../types.js';
import { provisionBenchAgent } from './bench-agent.js';

/**
 * POST /api/v1/send-message (sms) with a client token: limits admitted, message and usage stored,
 * then the real twilio SDK calls the simulator (in a process of its own, as Twilio is remote), which
 * also posts two signed status callbacks back per message.
 */
export const send: Scenario = {
  name: 'send',
  description:
    'POST /api/v1/send-message (sms) through the real twilio SDK to the simulator in its own process. Also measures the floor: the twilio SDK alone against the simulator.',
  target: { description: '≥ 10,000 req/s', minRate: 10_000 },
  async run(ctx) {
    const floor = await measureSdkFloor(ctx);
    const gateway = await startLiveGateway(ctx, { name: 'send' });
    const agentId = `send-${randomBytes(3).toString('hex')}`;
    const agent = await provisionBenchAgent(gateway, agentId, ['sms']);
    const measurement = await measureSend(ctx, { url: gateway.url, tokens: [agent.securityToken], cpu: { pid: gateway.pid, unit: 'send' } });
    return [floor, { ...measurement, floor: floor.label }];
  },
};

/**
 * POST /api/v1/send-message (sms) load against one target, the agents' client tokens taken in
 * turn, one request per connection at a time. Shared by `send` and `cluster`.
 */
export async function measureSend(
  ctx: BenchContext,
  target: { url: string; tokens: readonly string[]; cpu: CpuProbe; labelPrefix?: string; settled?: () => Promise<void>; warmupResponses?: number },
): Promise<Measurement> {
  let n = 0;
  const measurement = await ctx.load({
    label: `${target.labelPrefix ?? ''}send-message (sms)`,
    url: target.url,
    cpu: target.cpu,
    ...(target.warmupResponses === undefined ? {} : { warmupResponses: target.warmupResponses }),
    // Status callbacks the simulator posts after each send are charged to the window too.
    ...(target.settled ? { beforeWindow: target.settled, afterWindow: target.settled } : {}),
    requests: [
      {
        method: 'POST',
        path: '/api/v1/send-message',
        headers: { 'content-type': 'application/json' },
        setupRequest(req) {
          n += 1;
          const token = target.tokens[n % target.tokens.length]!;
          return {
            ...req,
            headers: { ...req.headers, authorization: `Bearer ${token}` },
            body: JSON.stringify({ channel: 'sms', to: '+14155550123', body: `Bench message ${n}` }),
          };
        },
      },
    ],
  });
  return { ...measurement, notes: `${n.toLocaleString('en-US')} sends issued (incl. warm-up)` };
}

/**
 * The floor of a send: twilio's SDK alone, in this process, creating messages on a simulator of its
 * own (no status callbacks) with as many requests in flight as the send run has connections. No
 * server, no store: what `send` could reach on this machine if Switchboard itself cost nothing.
 */
async function measureSdkFloor(ctx: BenchContext): Promise<Measurement> {
  const label = 'send floor (twilio SDK alone)';
  const { server, sim } = await startSimulatorProcess(['--no-status-callbacks']);
  let sentThisSecond = 0;
  const ticker = setInterval(() => {
    ctx.log(`${label}: ${sentThisSecond.toLocaleString('en-US')} sends/s`);
    sentThisSecond = 0;
  }, 1_000);
  try {
    const { accountSid, authToken } = sim.credentials.twilio!;
    const httpClient = new BaseUrlRequestClient(sim.baseUrls.twilio!, { keepAlive: true, timeout: 10_000 });
    const client = twilio(accountSid!, authToken!, { httpClient, autoRetry: false });
    const latencies: number[] = [];
    let errors = 0;
    let measuring = false;
    const sendUntil = async (end: number) => {
      while (performance.now() < end) {
        const started = performance.now();
        try {
          await client.messages.create({ to: '+14155550123', from: '+12025550100', body: 'Bench floor message' });
          sentThisSecond += 1;
          if (measuring) latencies.push(performance.now() - started);
        } catch {
          if (measuring) errors += 1;
        }
      }
    };
    const run = (seconds: number) => Promise.all(Array.from({ length: ctx.connections }, () => sendUntil(performance.now() + seconds * 1000)));
    ctx.log(`${label}: warm-up ${ctx.warmupSeconds} s, then ${ctx.durationSeconds} s`);
    await run(ctx.warmupSeconds);
    measuring = true;
    const started = performance.now();
    // The SDK's own cost per create: this process does nothing else while it runs.
    const cpu = startCpuWindow('self', 'create', 'load process (twilio SDK)');
    await run(ctx.durationSeconds);
    const sdkCpu = cpu.end(latencies.length);
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      label,
      rate: latencies.length / seconds,
      p50Ms: quantileMs(latencies, 0.5),
      p99Ms: quantileMs(latencies, 0.99),
      responses: latencies.length + errors,
      non2xx: {},
      socketErrors: errors,
      durationSeconds: seconds,
      connections: ctx.connections,
      reference: true,
      cpu: sdkCpu,
      notes: 'messages.create in the load process against its own simulator, no server: the most send could reach here',
    };
  } finally {
    clearInterval(ticker);
    await server.stop();
  }
}
