import autocannon from 'autocannon';
import { probeWindow } from './cpu.js';
import type { LoadSpec, Measurement } from './types.js';

/** How long and how hard one load run drives its target. */
export interface LoadSettings {
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
}

/** Warms the target up (JIT, pools, caches), then measures it; progress goes to stderr once a second. */
export async function runLoad(spec: LoadSpec, settings: LoadSettings): Promise<Measurement> {
  if (settings.warmupSeconds > 0) await drive(spec, settings, settings.warmupSeconds, 'warm-up');
  await spec.beforeWindow?.();
  const cpu = probeWindow(spec.cpu);
  const result = await drive(spec, settings, settings.durationSeconds, 'measure');
  await spec.afterWindow?.();
  const measurement = toMeasurement(spec, result);
  return cpu ? { ...measurement, cpu: cpu.end(result['2xx']) } : measurement;
}

function drive(spec: LoadSpec, settings: LoadSettings, seconds: number, phase: string): Promise<autocannon.Result> {
  const { label, notes: _notes, cpu: _cpu, beforeWindow: _before, afterWindow: _after, connections = settings.connections, ...request } = spec;
  return new Promise((resolve, reject) => {
    let second = 0;
    let responses = 0;
    let failed = 0;
    const instance = autocannon({ ...request, connections, duration: seconds }, (err, result) => {
      clearInterval(ticker);
      if (err) reject(err instanceof Error ? err : new Error(String(err)));
      else resolve(result);
    });
    instance.on('response', (_client, status) => {
      responses += 1;
      if (status < 200 || status >= 300) failed += 1;
    });
    instance.on('reqError', () => (failed += 1));
    const ticker = setInterval(() => {
      second += 1;
      const rate = responses.toLocaleString('en-US').padStart(8);
      process.stderr.write(`  [${label}] ${phase} ${second}/${seconds} s ${rate} req/s${failed ? `  ${failed} failed` : ''}\n`);
      responses = 0;
      failed = 0;
    }, 1_000);
    ticker.unref();
  });
}

function toMeasurement(spec: LoadSpec, result: autocannon.Result): Measurement {
  const non2xx: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
    if (!code.startsWith('2') && stat.count) non2xx[code] = stat.count;
  }
  return {
    label: spec.label,
    rate: result['2xx'] / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    responses: result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'],
    non2xx,
    socketErrors: result.errors,
    durationSeconds: result.duration,
    connections: result.connections,
    ...(spec.notes ? { notes: spec.notes } : {}),
  };
}
