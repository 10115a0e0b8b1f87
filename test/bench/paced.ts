import http from 'node:http';
import { probeWindow } from './cpu.js';
import type { LoadSettings } from './load.js';
import type { Measurement, PacedRequest, PacedSpec } from './types.js';

/** How long a paced request may take before it counts as a socket error. */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * An open-loop run at a fixed rate: requests are sent evenly spaced in time (checked every
 * millisecond) over keep-alive connections, whether or not earlier ones have been answered, and each
 * is timed from its send to the end of its response. autocannon's own rate limit lets every
 * connection send its whole per-second budget at once at the top of each second, which measures how
 * fast a burst drains rather than the latency at a rate.
 */
export async function runPaced(spec: PacedSpec, settings: LoadSettings): Promise<Measurement> {
  if (settings.warmupSeconds > 0) await pace(spec, settings.warmupSeconds, 'warm-up');
  await spec.beforeWindow?.();
  const cpu = probeWindow(spec.cpu);
  const measurement = await pace(spec, spec.durationSeconds ?? settings.durationSeconds, 'measure');
  await spec.afterWindow?.();
  return cpu ? { ...measurement, cpu: cpu.end(Math.round(measurement.rate * measurement.durationSeconds)) } : measurement;
}

async function pace(spec: PacedSpec, seconds: number, phase: string): Promise<Measurement> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  const latencies: number[] = [];
  const non2xx: Record<string, number> = {};
  let socketErrors = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let answeredThisSecond = 0;
  let second = 0;
  const ticker = setInterval(() => {
    second += 1;
    process.stderr.write(`  [${spec.label}] ${phase} ${second}/${seconds} s ${answeredThisSecond.toLocaleString('en-US').padStart(8)} req/s\n`);
    answeredThisSecond = 0;
  }, 1_000);
  ticker.unref();

  const send = async (): Promise<void> => {
    const started = performance.now();
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const request = spec.next();
    const status = await httpRequest(agent, spec.url, request).catch(() => undefined);
    inFlight -= 1;
    answeredThisSecond += 1;
    if (status === undefined) socketErrors += 1;
    else if (status < 200 || status >= 300) non2xx[status] = (non2xx[status] ?? 0) + 1;
    else latencies.push(performance.now() - started);
    if (status !== undefined) spec.onResponse?.(status, request, performance.now());
  };

  const total = Math.round(spec.rate * seconds);
  const pending: Promise<void>[] = [];
  const t0 = performance.now();
  for (let sent = 0; sent < total; ) {
    const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * spec.rate) + 1);
    for (; sent < due; sent++) pending.push(send());
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - t0) / 1000;
  clearInterval(ticker);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const failed = Object.values(non2xx).reduce((n, c) => n + c, 0);
  return {
    label: spec.label,
    rate: latencies.length / elapsed,
    p50Ms: quantileMs(latencies, 0.5),
    p99Ms: quantileMs(latencies, 0.99),
    responses: latencies.length + failed,
    non2xx,
    socketErrors,
    durationSeconds: elapsed,
    connections: maxInFlight,
    ...(spec.notes ? { notes: spec.notes } : {}),
  };
}

/** The q-quantile of ascending latencies in ms, to 0.1 ms; NaN when there are none. */
export function quantileMs(sorted: readonly number[], q: number): number {
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN) * 10) / 10;
}

/**
 * Sends one request over `agent` and resolves with its status once the response has been read;
 * rejects when it gets no response (socket error, or no answer within REQUEST_TIMEOUT_MS).
 */
function httpRequest(
  agent: http.Agent,
  origin: string,
  { method, path, headers, body }: PacedRequest,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const sized = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = http.request(`${origin}${path}`, { method, agent, headers: sized }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('no answer in time')));
    req.on('error', reject);
    req.end(body);
  });
}
