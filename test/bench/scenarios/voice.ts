import { startLiveGateway } from '../live-gateway.js';
import type { Measurement, Scenario } from '../types.js';

const STEPS = (process.env.BENCH_VOICE_CALLS ?? '25,50,100,200,400').split(',').map(Number);
const CALL_SECONDS = 12;

/**
 * Concurrent stream-mode calls from simulator phones. The simulator runs in its own process (the
 * phones' real-time frame clock must not share the server's event loop); the server runs in live mode
 * pointed at it, so every call goes through the signed voice webhook, the signed media WebSocket, the
 * audio worker pool (μ-law decode, VAD), speech-to-text and TTS with 20 ms pacing. Steps up the number
 * of calls and reports, per step, the server's frame delay (arrival to processed) and the phones'
 * late frames; the largest N with p99 < 20 ms and no late frames holds real time.
 */
export const voice: Scenario = {
  name: 'voice',
  description: `Concurrent stream-mode calls from simulator phones in a separate process, stepping through ${STEPS.join(', ')} calls.`,
  target: { description: '≥ 1,000 concurrent calls, frame delay p99 < 20 ms, no late frames', maxP99Ms: 20 },
  async run(ctx) {
    const { url: base, orchestratorToken, sim } = await startLiveGateway(ctx, {
      name: 'voice',
      simulatorArgs: ['--no-status-callbacks'],
      env: { VOICE_MODE: 'stream' },
    });
    const auth = { authorization: `Bearer ${orchestratorToken}`, 'content-type': 'application/json' };
    const provisioned = await fetch(`${base}/api/v1/provision`, { method: 'POST', headers: auth, body: JSON.stringify({ agentId: 'voice-bench', displayName: 'Voice bench', channels: ['voice'] }) });
    if (provisioned.status !== 201) throw new Error(`provisioning answered ${provisioned.status}: ${await provisioned.text()}`);

    const rows: Measurement[] = [];
    for (const calls of STEPS) {
      ctx.log(`voice: ${calls} concurrent calls for ${CALL_SECONDS} s`);
      const before = await frameDelay(base);
      const started = Date.now();
      const placed = await Promise.all(
        Array.from({ length: calls }, (_, i) =>
          fetch(`${sim.url}/_sim/phone/call`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              agentId: 'voice-bench',
              from: `+1415555${String(1000 + i).padStart(4, '0')}`,
              to: '+12025550100',
              mode: 'stream',
              script: { steps: ['I would like to leave a message please', { kind: 'listen', ms: CALL_SECONDS * 1000 }], maxDurationMs: (CALL_SECONDS + 5) * 1000 },
            }),
          }).then(async (res) => ((await res.json()) as { callSid?: string }).callSid),
        ),
      );
      await new Promise((r) => setTimeout(r, (CALL_SECONDS + 6) * 1000));
      const elapsed = (Date.now() - started) / 1000;
      const after = await frameDelay(base);
      const summaries = (await (await fetch(`${sim.url}/_sim/phone/calls`)).json()) as { calls?: { callSid: string; frames?: { sent: number; late: number; received: number } }[] };
      const mine = (summaries.calls ?? []).filter((s) => placed.includes(s.callSid));
      const late = mine.reduce((n, s) => n + (s.frames?.late ?? 0), 0);
      const sent = mine.reduce((n, s) => n + (s.frames?.sent ?? 0), 0);
      const received = mine.reduce((n, s) => n + (s.frames?.received ?? 0), 0);
      const delay = after.minus(before);
      rows.push({
        label: `voice, ${calls} calls`,
        rate: sent / elapsed,
        p50Ms: delay.quantileMs(0.5),
        p99Ms: delay.quantileMs(0.99),
        responses: sent,
        non2xx: late > 0 ? { 'late frames': late } : {},
        socketErrors: placed.filter((p) => !p).length,
        durationSeconds: elapsed,
        connections: calls,
        notes: `frames in ${sent.toLocaleString('en-US')}, out ${received.toLocaleString('en-US')}, late ${late}; rate = inbound frames/s; p50/p99 = server frame delay`,
      });
      await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
    }
    return rows;
  },
};

/** The server's frame-delay histogram, read from /metrics. */
async function frameDelay(base: string): Promise<Histogram> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const buckets = [...text.matchAll(/^switchboard_voice_frame_delay_seconds_bucket\{le="([^"]+)"\} (\d+)/gm)].map((m) => ({ le: m[1] === '+Inf' ? Infinity : Number(m[1]), count: Number(m[2]) }));
  return new Histogram(buckets);
}

class Histogram {
  constructor(readonly buckets: { le: number; count: number }[]) {}

  minus(earlier: Histogram): Histogram {
    return new Histogram(this.buckets.map((b, i) => ({ le: b.le, count: b.count - (earlier.buckets[i]?.count ?? 0) })));
  }

  /** The upper bound (ms) of the bucket holding quantile q: an upper estimate, as Prometheus' buckets allow. */
  quantileMs(q: number): number {
    const total = this.buckets.at(-1)?.count ?? 0;
    if (total === 0) return NaN;
    const bucket = this.buckets.find((b) => b.count >= q * total);
    return bucket && Number.isFinite(bucket.le) ? bucket.le * 1000 : Infinity;
  }
}
