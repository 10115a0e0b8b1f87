import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';

/**
 * OpenTelemetry traces, off unless the standard `OTEL_*` variables ask for an exporter (see
 * {@link tracingConfigured}). Off, no SDK is loaded and the hot paths check {@link tracing}`.on`
 * only: they create no span, read no header and allocate nothing. On, one tracer provider serves the
 * process (its roles share it: every role started in it acquires it, the last one to stop flushes it),
 * with the W3C trace context as the propagator and async-hooks carrying the active span.
 */
export interface TracingState {
  /** Whether spans are made: read by the hot paths before anything else. */
  on: boolean;
  /** The tracer (the API's no-op one while off). */
  tracer: Tracer;
}

/** The process's tracing: `on` and the tracer. */
export const tracing: TracingState = { on: false, tracer: trace.getTracer('switchboard') };

/** The `OTEL_*` variables tracing reads (the SDK reads the rest: OTEL_BSP_*, OTEL_EXPORTER_OTLP_HEADERS, …). */
type TracingEnv = Readonly<Record<string, string | undefined>>;

/**
 * Whether the environment asks for traces: `OTEL_TRACES_EXPORTER` names `otlp` (or `console`), or it
 * is unset and an OTLP endpoint is given (`OTEL_EXPORTER_OTLP_ENDPOINT` or `…_TRACES_ENDPOINT`).
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` turn it off whatever else is set.
 */
export function tracingConfigured(env: TracingEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = exportersOf(env);
  if (exporters.length > 0) return exporters.some((e) => e === 'otlp' || e === 'console');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

function exportersOf(env: TracingEnv): string[] {
  return (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
}

interface Started {
  users: number;
  shutdown(): Promise<void>;
}

let started: Started | undefined;
let starting: Promise<Started> | undefined;

/** What a role tells the tracer provider about the process, the first time it is started. */
export interface TracingOptions {
  /** `service.version`. */
  version?: string;
  /** The process environment (the SDK itself reads `process.env`). */
  env?: TracingEnv;
}

/**
 * Starts the process's tracing when the environment asks for it (once per process; a second role in
 * the same process shares it), and returns what stops it: the last stop flushes the spans still
 * batched and shuts the provider down. Returns a no-op stop when tracing is not configured.
 */
export async function startTracing(options: TracingOptions = {}): Promise<() => Promise<void>> {
  if (!tracingConfigured(options.env ?? process.env)) return async () => undefined;
  starting ??= started ? Promise.resolve(started) : loadSdk(options);
  const current = await starting;
  current.users++;
  let stopped = false;
  return async () => {
    if (stopped) return;
    stopped = true;
    if (--current.users > 0) return;
    if (started === current) {
      started = undefined;
      starting = undefined;
    }
    await current.shutdown();
  };
}

/** Loads the SDK (only now: a process without tracing never loads it) and registers it globally. */
async function loadSdk(options: TracingOptions): Promise<Started> {
  const [{ NodeTracerProvider, BatchSpanProcessor, ConsoleSpanExporter }, { OTLPTraceExporter }, resources, { W3CTraceContextPropagator }, semconv] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const env = options.env ?? process.env;
  const exporters = exportersOf(env);
  // Ours first, then the defaults' SDK attributes, then OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, which win.
  const resource = resources
    .resourceFromAttributes({
      [semconv.ATTR_SERVICE_NAME]: 'switchboard',
      ...(options.version ? { [semconv.ATTR_SERVICE_VERSION]: options.version } : {}),
    })
    .merge(resources.detectResources({ detectors: [resources.envDetector, resources.serviceInstanceIdDetector] }));
  const wantsConsole = exporters.includes('console');
  const wantsOtlp = exporters.length === 0 || exporters.includes('otlp');
  const provider = new NodeTracerProvider({
    resource: resources.defaultResource().merge(resource),
    spanProcessors: [
      ...(wantsOtlp ? [new BatchSpanProcessor(new OTLPTraceExporter())] : []),
      ...(wantsConsole ? [new BatchSpanProcessor(new ConsoleSpanExporter())] : []),
    ],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  tracing.tracer = provider.getTracer('switchboard', options.version);
  tracing.on = true;
  started = {
    users: 0,
    async shutdown() {
      tracing.on = false;
      sends.clear();
      tracing.tracer = trace.getTracer('switchboard');
      try {
        await provider.shutdown();
      } finally {
        // A later start in this process (a test's next gateway) registers afresh.
        trace.disable();
        context.disable();
        propagation.disable();
      }
    },
  };
  return started;
}

/**
 * Runs `work` in a new span (call only when {@link tracing}`.on`): ended when it settles, its error
 * recorded. `parent` defaults to the active context; `links` relate it to spans of other traces.
 */
export function inSpan<T>(name: string, kind: SpanKind, attributes: Attributes, work: (span: Span) => Promise<T>, parent?: Context, links?: Link[]): Promise<T> {
  return tracing.tracer.startActiveSpan(name, { kind, attributes, ...(links ? { links } : {}) }, parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Whether a span is active here (only then do the inner layers add theirs: no root span for background work). */
export function inTrace(): boolean {
  return trace.getSpan(context.active()) !== undefined;
}

/** Runs `work` in a child span of the active one, or as it is when no span is active (call only when on). */
export function childSpan<T>(name: string, kind: SpanKind, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return inTrace() ? inSpan(name, kind, attributes, work) : work();
}

/** The trace context of `headers` (W3C `traceparent`/`tracestate`, lower-case names), as a parent context. */
export function contextFromHeaders(headers: Readonly<Record<string, string | undefined>>): Context {
  return propagation.extract(ROOT_CONTEXT, headers);
}

/** The active trace context as headers (`traceparent`, maybe `tracestate`); empty when no span is active. */
export function traceHeaders(active: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  return carrier;
}

/** The active span's `traceparent`, when one is active and tracing is on. */
export function activeTraceparent(): string | undefined {
  return tracing.on ? traceHeaders().traceparent : undefined;
}

/** Runs `work` with `parent` as the active context. */
export function withContext<T>(parent: Context, work: () => T): T {
  return context.with(parent, work);
}

/** The spans of recent provider sends, by message id (at most {@link SENDS_KEPT}, oldest dropped first). */
const sends = new Map<string, SpanContext>();
const SENDS_KEPT = 10_000;

/**
 * Notes the span of a message's provider send, so that its status callbacks, which a provider's
 * receipt brings later in a trace of its own, continue the send's trace (call only when on).
 */
export function rememberSend(messageId: string, span: Span): void {
  sends.delete(messageId);
  sends.set(messageId, span.spanContext());
  if (sends.size > SENDS_KEPT) sends.delete(sends.keys().next().value!);
}

/** The context of a message's provider send made in this process, as a parent; undefined when none is known. */
export function sendContextOf(messageId: string): Context | undefined {
  const sent = sends.get(messageId);
  return sent && trace.setSpanContext(ROOT_CONTEXT, sent);
}

/** The active span's context, as a link, when one is active. */
export function activeLink(): Link[] {
  const active = trace.getSpanContext(context.active());
  return active ? [{ context: active }] : [];
}

export { SpanKind, SpanStatusCode, type Span, type Context };
