import { startBareServer, type BareKind } from '../bare/start.js';
import type { BenchContext, Measurement, Scenario } from '../types.js';

/** Row labels of the two ceilings; the harness computes every ratio against them. */
export const UWS_LABEL = 'bare uWS';
export const NODE_HTTP_LABEL = 'bare node:http';

async function measureBare(ctx: BenchContext, kind: BareKind, label: string): Promise<Measurement> {
  const { server, url } = await startBareServer(kind);
  try {
    return await ctx.load({ label, url: `${url}/health`, cpu: { pid: server.pid, unit: 'request', whose: 'bare server' }, notes: 'ceiling: smallest handler, same JSON size' });
  } finally {
    await server.stop();
  }
}

/** The machine's ceiling: bare uWebSockets.js and bare node:http handlers, each in its own process. */
export const baseline: Scenario = {
  name: 'baseline',
  description: 'Bare uWebSockets.js and bare node:http handlers answering a small JSON body (the ceiling of this run).',
  async run(ctx) {
    return [await measureBare(ctx, 'uws', UWS_LABEL), await measureBare(ctx, 'node-http', NODE_HTTP_LABEL)];
  },
};
