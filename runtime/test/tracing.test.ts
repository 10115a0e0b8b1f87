import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTracing, tracing, tracingConfigured } from '../src/tracing.js';

describe('tracing configuration (the standard OTEL_* variables)', () => {
  it('is on for an OTLP or console exporter, or an endpoint with no exporter named; off otherwise', () => {
    const cases: [Record<string, string>, boolean][] = [
      [{}, false],
      [{ OTEL_SERVICE_NAME: 'sb' }, false],
      [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
      [{ OTEL_TRACES_EXPORTER: ' OTLP ' }, true],
      [{ OTEL_TRACES_EXPORTER: 'console' }, true],
      [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, false],
      [{ OTEL_TRACES_EXPORTER: 'zipkin' }, false],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, true],
      [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }, true],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
      [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' }, false],
    ];
    for (const [env, on] of cases) assert.equal(tracingConfigured(env), on, JSON.stringify(env));
  });

  it('not configured, starting leaves it off: the no-op tracer, and a stop that does nothing', async () => {
    const stop = await startTracing({ env: {} });
    assert.equal(tracing.on, false);
    assert.equal(tracing.tracer.startSpan('x').isRecording(), false);
    await stop();
    assert.equal(tracing.on, false);
  });
});
