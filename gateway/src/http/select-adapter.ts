import type { AdapterName, HttpAdapter } from './adapter.js';

/** Which adapter the gateway runs on and why, for the one start-up log line. */
export interface AdapterChoice {
  readonly adapter: HttpAdapter;
  readonly reason: string;
}

/** `HTTP_ADAPTER`: `auto` probes uWS and falls back to node:http. */
export type AdapterSetting = 'auto' | AdapterName;

const runtimeName = () => `Node ${process.version} (ABI ${process.versions.modules}, ${process.platform}-${process.arch})`;

/**
 * Picks the HTTP adapter. `uws` and `node` are taken as asked (`uws` fails the start when it cannot
 * serve); `auto` loads uWebSockets.js, rejects its JavaScript fallback, and has it answer one
 * loopback request before trusting it, since a build that loads can still fail on the first request.
 */
export async function selectAdapter(setting: AdapterSetting): Promise<AdapterChoice> {
  if (setting === 'node') {
    const { nodeAdapter } = await import('./node-adapter.js');
    return { adapter: nodeAdapter, reason: 'HTTP_ADAPTER=node' };
  }
  const uws = await loadUws();
  if (uws.ok) return { adapter: uws.adapter, reason: setting === 'uws' ? 'HTTP_ADAPTER=uws; its native build answered a probe request' : `its native build answered a probe request on ${runtimeName()}` };
  if (setting === 'uws') throw new Error(`HTTP_ADAPTER=uws, but uWebSockets.js cannot serve on ${runtimeName()}: ${uws.reason}. Set HTTP_ADAPTER=auto or node.`);
  const { nodeAdapter } = await import('./node-adapter.js');
  return { adapter: nodeAdapter, reason: `uWebSockets.js cannot serve on ${runtimeName()}: ${uws.reason}` };
}

type UwsLoad = { ok: true; adapter: HttpAdapter } | { ok: false; reason: string };

let loading: Promise<UwsLoad> | undefined;

/** Loads and probes the uWS adapter once per process. */
function loadUws(): Promise<UwsLoad> {
  loading ??= (async (): Promise<UwsLoad> => {
    // The package falls back to an incomplete JavaScript server when its binary does not load, and
    // says so only on the console; the warning is taken as the reason instead of being printed.
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(' '));
    let module: typeof import('./uws-adapter.js');
    try {
      module = await import('./uws-adapter.js');
    } catch (err) {
      return { ok: false, reason: `it does not load (${firstLine(err)})` };
    } finally {
      console.warn = warn;
    }
    const fallback = warnings.join('\n');
    if (/not compatible|falling back/i.test(fallback)) {
      const cause = fallback.split('\n').find((line) => /error/i.test(line))?.trim();
      return { ok: false, reason: `its native build does not load${cause ? ` (${cause})` : ''}` };
    }
    try {
      await module.probeUws();
    } catch (err) {
      return { ok: false, reason: `a probe request failed (${firstLine(err)})` };
    }
    return { ok: true, adapter: module.uwsAdapter };
  })();
  return loading;
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim();
}
