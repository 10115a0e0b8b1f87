import { readFileSync } from 'node:fs';

/** One reading of the server's memory: RSS from /proc, the V8 heap from its Prometheus metrics. */
export interface MemorySample {
  /** Seconds since sampling started. */
  readonly at: number;
  readonly rssMiB: number;
  /** The anonymous part of RSS (heaps: V8's, malloc's, SQLite's page cache); the rest is files mapped and shared memory. */
  readonly rssAnonMiB: number;
  /** V8 heap in use (nodejs_heap_size_used_bytes); NaN when /metrics did not answer. */
  readonly heapUsedMiB: number;
  /** Memory V8 holds for objects outside its heap: Buffers, ArrayBuffers (nodejs_external_memory_bytes). */
  readonly externalMiB: number;
  /** Series in the /metrics exposition: a label set that grows with traffic shows here. */
  readonly metricSeries: number;
}

const MIB = 1024 * 1024;

/**
 * Reads the server's memory every `everyMs`: RSS from /proc/<pid>/status, and the V8 heap and
 * external memory from `GET /metrics` (prom-client's default metrics, read at scrape time).
 */
export function sampleMemory(pid: number, origin: string, everyMs: number): { readonly samples: readonly MemorySample[]; take(): Promise<MemorySample>; stop(): void } {
  const samples: MemorySample[] = [];
  const t0 = performance.now();
  const take = async (): Promise<MemorySample> => {
    const at = (performance.now() - t0) / 1000;
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const mibOf = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
    const metrics = await fetch(`${origin}/metrics`)
      .then((res) => res.text())
      .catch(() => '');
    const sample = {
      at,
      rssMiB: mibOf('VmRSS'),
      rssAnonMiB: mibOf('RssAnon'),
      heapUsedMiB: gauge(metrics, 'nodejs_heap_size_used_bytes') / MIB,
      externalMiB: gauge(metrics, 'nodejs_external_memory_bytes') / MIB,
      metricSeries: metrics.split('\n').filter((line) => line && !line.startsWith('#')).length,
    };
    samples.push(sample);
    return sample;
  };
  const timer = setInterval(() => void take(), everyMs);
  return { samples, take, stop: () => clearInterval(timer) };
}

function gauge(exposition: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(exposition);
  return match ? Number(match[1]) : NaN;
}

/** The median of `values`; NaN when there are none. */
export function median(values: readonly number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Memory around a moment of the run: the median RSS of the samples within `halfWidth` seconds of
 * `at` (RSS moves in steps; one sample can catch a spike), and the lowest heap in use there (what is
 * left after a collection: the heap's sawtooth peaks say how much garbage waits, its floor what is live).
 */
export function memoryAround(
  samples: readonly MemorySample[],
  at: number,
  halfWidth: number,
): { rssMiB: number; rssAnonMiB: number; heapFloorMiB: number; externalMiB: number; metricSeries: number } {
  const near = samples.filter((s) => Math.abs(s.at - at) <= halfWidth);
  return {
    rssMiB: median(near.map((s) => s.rssMiB)),
    rssAnonMiB: median(near.map((s) => s.rssAnonMiB)),
    heapFloorMiB: Math.min(...near.map((s) => s.heapUsedMiB).filter((v) => !Number.isNaN(v))),
    externalMiB: median(near.map((s) => s.externalMiB)),
    metricSeries: Math.max(...near.map((s) => s.metricSeries)),
  };
}
