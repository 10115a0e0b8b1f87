import { spawnServer, type ChildServer } from '../children.js';
import { READY_LINE } from './body.js';

/** Which bare handler to start: the two ceilings, or the persisted-webhook floor of `ingest`. */
export type BareKind = 'uws' | 'node-http' | 'persist';

const SCRIPTS: Record<BareKind, string> = {
  uws: 'test/bench/bare/uws-server.ts',
  'node-http': 'test/bench/bare/node-http-server.ts',
  persist: 'test/bench/bare/persist-server.ts',
};

/** Starts a bare handler in its own process and returns its origin; `env` is its configuration. */
export async function startBareServer(kind: BareKind, env: Readonly<Record<string, string>> = {}): Promise<{ server: ChildServer; url: string }> {
  const { server, match } = await spawnServer({
    name: `bare ${kind}`,
    args: [SCRIPTS[kind]],
    env: { ...env, NODE_ENV: 'production' },
    ready: READY_LINE,
  });
  return { server, url: match[1]! };
}
