import { spawnServer, type ChildServer } from '../children.js';
import { READY_LINE } from './body.js';

/** Which bare handler to start. */
export type BareKind = 'uws' | 'node-http';

const SCRIPTS: Record<BareKind, string> = {
  uws: 'test/bench/bare/uws-server.ts',
  'node-http': 'test/bench/bare/node-http-server.ts',
};

/** Starts a bare handler in its own process and returns its origin. */
export async function startBareServer(kind: BareKind): Promise<{ server: ChildServer; url: string }> {
  const { server, match } = await spawnServer({
    name: `bare ${kind}`,
    args: [SCRIPTS[kind]],
    env: { NODE_ENV: 'production' },
    ready: READY_LINE,
  });
  return { server, url: match[1]! };
}
