import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onExit } from './exit-cleanup.js';

/**
 * `BENCH_TRACING=<ratio>` runs every server child with OpenTelemetry traces on, exported over OTLP/HTTP
 * to a sink in this process that takes each batch and drops it: `1` traces every request
 * (`parentbased_always_on`), a ratio below 1 samples root traces at that ratio
 * (`parentbased_traceidratio`). The server pays what a deployment pays to make, batch, encode and send
 * its spans; the collector's side is not counted. Unset, servers run as deployed with tracing off.
 */
export function tracingRatio(): number | undefined {
  const raw = process.env.BENCH_TRACING;
  if (raw === undefined || raw === '') return undefined;
  const ratio = Number(raw);
  if (!Number.isFinite(ratio) || ratio <= 0 || ratio > 1) throw new Error(`BENCH_TRACING=${raw}: give a sampling ratio above 0 and at most 1 (1 traces every request).`);
  return ratio;
}

interface Sink {
  readonly url: string;
  batches: number;
  bytes: number;
}

let sink: Promise<Sink> | undefined;

/** The `OTEL_*` variables a server child gets under `BENCH_TRACING`, starting the sink on first use; none without it. */
export async function tracingEnv(): Promise<Record<string, string>> {
  const ratio = tracingRatio();
  if (ratio === undefined) return {};
  sink ??= startSink();
  const { url } = await sink;
  return {
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: url,
    OTEL_SERVICE_NAME: 'switchboard-bench',
    ...(ratio === 1 ? { OTEL_TRACES_SAMPLER: 'parentbased_always_on' } : { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: String(ratio) }),
  };
}

async function startSink(): Promise<Sink> {
  const state = { url: '', batches: 0, bytes: 0 };
  const server: Server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => {
      state.bytes += chunk.length;
    });
    req.on('end', () => {
      if (req.url?.startsWith('/v1/traces')) state.batches += 1;
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  server.unref();
  process.stderr.write(`Tracing on (BENCH_TRACING=${process.env.BENCH_TRACING}): spans exported to the OTLP sink at ${state.url}\n`);
  onExit(() => process.stderr.write(`Tracing: the sink took ${state.batches} span batches, ${(state.bytes / 1024).toFixed(0)} KiB\n`));
  return state;
}
