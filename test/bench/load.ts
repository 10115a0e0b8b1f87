import autocannon from 'autocannon';
import { probeWindow } from './cpu.js';
import type { LoadSpec, Measurement } from './types.js';

/** How long and how hard one load run drives its target. */
export interface LoadSettings {
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
}

/** Most warm-up rounds a spec's `warmupResponses` may add to the first. */
const MOST_WARMUP_ROUNDS = 6;

/** Warms the target up (JIT, pools, caches), then measures it; progress goes to stderr once a second. */
export async function runLoad(spec: LoadSpec, settings: LoadSettings): Promise<Measurement> {
  await warmUp(spec, settings);
  await spec.beforeWindow?.();
  const cpu = probeWindow(spec.cpu);
  const result = await drive(spec, settings, settings.durationSeconds, 'measure');
  await spec.afterWindow?.();
  const measurement = toMeasurement(spec, result);
  return cpu ? { ...measurement, cpu: cpu.end(result['2xx']) } : measurement;
}

/**
 * The run's warm-up seconds; then, for a spec that names `warmupResponses`, more rounds of the same
 * length until that many answers came, so that a slower target is warmed by as much work as a faster one.
 */
async function warmUp(spec: LoadSpec, settings: LoadSettings): Promise<void> {
  if (settings.warmupSeconds <= 0) return;
  let answered = 0;
  const wanted = spec.warmupResponses ?? 0;
  for (let round = 0; round <= MOST_WARMUP_ROUNDS; round++) {
    const phase = round === 0 ? 'warm-up' : `warm-up, ${answered.toLocaleString('en-US')} of ${wanted.toLocaleString('en-US')} answers so far`;
    answered += (await drive(spec, settings, settings.warmupSeconds, phase))['2xx'];
    if (answered >= wanted) return;
  }
}

function drive(spec: LoadSpec, settings: LoadSettings, seconds: number, phase: string): Promise<autocannon.Result> {
  const { label, notes: _notes, cpu: _cpu, beforeWindow: _before, afterWindow: _after, warmupResponses: _warmup, connections = settings.connections, ...request } = spec;
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
