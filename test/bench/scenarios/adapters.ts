import { randomBytes } from 'node:crypto';
import { cpuSeconds } from '../proc.js';
import type { BenchContext, Measurement, Scenario } from '../types.js';
import { provisionBenchAgent, simulatorCredentials, twilioSignedUrl } from './bench-agent.js';
import { signedWebhooks, webhookRequest } from './ingest.js';

const ADAPTERS = ['uws', 'node'] as const;
type Adapter = (typeof ADAPTERS)[number];
const CONNECTIONS = 256;

interface AdapterRun {
  readonly adapter: Adapter;
  readonly ingest: Measurement;
  readonly health: Measurement;
  /** Server CPU (user + system) per answered request, in microseconds. */
  readonly ingestCpuUs: number;
  readonly healthCpuUs: number;
}

/**
 * The cost of the portable adapter: the same ingest load (signed SMS webhooks, persisted before the
 * 200) and the same GET /health load against a server forced onto each HTTP adapter
 * (HTTP_ADAPTER=uws, then node), with the server's CPU time per answered request.
 */
export const adapters: Scenario = {
  name: 'adapters',
  description: 'Ingest and GET /health on each HTTP adapter (HTTP_ADAPTER=uws and node): rate, node/uws ratio, server CPU per request.',
  async run(ctx) {
    const runs: AdapterRun[] = [];
    for (const adapter of ADAPTERS) {
      try {
        runs.push(await measure(ctx, adapter));
      } catch (err) {
        // uWS cannot serve on every Node (22 and 24 with the pinned package); the node row still counts.
        ctx.log(`${adapter}: not measured: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      }
    }
    if (!runs.some((r) => r.adapter === 'node')) throw new Error('the node:http adapter was not measured (see above)');
    const uws = runs.find((r) => r.adapter === 'uws');
    return runs.flatMap((run) => {
      const ratio = (pick: (r: AdapterRun) => Measurement) => (uws && run !== uws ? `; ${(pick(run).rate / pick(uws).rate).toFixed(2)} of uws` : '');
      return [
        { ...run.ingest, reference: true, notes: `server CPU ${run.ingestCpuUs.toFixed(0)} µs/request${ratio((r) => r.ingest)}` },
        { ...run.health, reference: true, notes: `server CPU ${run.healthCpuUs.toFixed(0)} µs/request${ratio((r) => r.health)}` },
      ];
    });
  },
};

async function measure(ctx: BenchContext, adapter: Adapter): Promise<AdapterRun> {
  const gateway = await ctx.gateway({ adapter });
  const { twilio: credentials } = await simulatorCredentials(gateway);
  const agentId = `adapter-${adapter}-${randomBytes(3).toString('hex')}`;
  const agent = await provisionBenchAgent(gateway, agentId, ['sms']);
  const path = `/webhooks/${agentId}/sms`;
  const webhooks = signedWebhooks(credentials, twilioSignedUrl(`${gateway.url}${path}`), agent.channels.sms!.address);
  // Every answer, warm-up included, so that the CPU read around the whole run divides by its real work.
  let answered = 0;
  const count = () => void (answered += 1);
  let cpu = cpuSeconds(gateway.pid);
  const ingest = await ctx.load({ label: `ingest on ${adapter}`, url: gateway.url, requests: [webhookRequest(path, webhooks, count)], connections: CONNECTIONS });
  const ingestCpuUs = ((cpuSeconds(gateway.pid) - cpu) / Math.max(1, answered)) * 1e6;
  answered = 0;
  cpu = cpuSeconds(gateway.pid);
  const health = await ctx.load({ label: `health on ${adapter}`, url: gateway.url, requests: [{ method: 'GET', path: '/health', onResponse: count }] });
  const healthCpuUs = ((cpuSeconds(gateway.pid) - cpu) / Math.max(1, answered)) * 1e6;
  ctx.log(`${adapter}: ingest ${Math.round(ingest.rate)}/s at ${ingestCpuUs.toFixed(0)} µs CPU/request; health ${Math.round(health.rate)}/s at ${healthCpuUs.toFixed(0)} µs CPU/request`);
  return { adapter, ingest, health, ingestCpuUs, healthCpuUs };
}
