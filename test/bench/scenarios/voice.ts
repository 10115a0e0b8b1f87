import { startLiveGateway } from '../live-gateway.js';
import { cpuSeconds } from '../proc.js';
import type { Measurement, Scenario } from '../types.js';

const STEPS = (process.env.BENCH_VOICE_CALLS ?? '50,100,200,300,400,500').split(',').map(Number);
/** New calls per second while a step fills up. */
const RAMP_PER_SECOND = Number(process.env.BENCH_VOICE_RAMP ?? 50);
/**
 * After the last call is placed: long enough for every caller to have heard the greeting and started
 * speaking, so that the simulator's one-off synthesis of the message falls before the window.
 */
const SETTLE_SECONDS = 6;
const WINDOW_SECONDS = 8;
/** A Media Streams call sends a 20 ms frame 50 times a second. */
const FRAMES_PER_SECOND = 50;

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
  target: { description: '≥ 1,000 concurrent calls, frame delay p99 < 20 ms, no late frames', maxP99Ms: 20, minConnections: 1000 },
  async run(ctx) {
    const { url: base, orchestratorToken, sim, pid, simulatorPid } = await startLiveGateway(ctx, {
      name: 'voice',
      simulatorArgs: ['--no-status-callbacks'],
      env: { VOICE_MODE: 'stream' },
    });
    const auth = { authorization: `Bearer ${orchestratorToken}`, 'content-type': 'application/json' };
    const provisioned = await fetch(`${base}/api/v1/provision`, { method: 'POST', headers: auth, body: JSON.stringify({ agentId: 'voice-bench', displayName: 'Voice bench', channels: ['voice'] }) });
    if (provisioned.status !== 201) throw new Error(`provisioning answered ${provisioned.status}: ${await provisioned.text()}`);

    // Every step's callers say the same message, sized for the longest step. One warm-up call has the
    // simulator synthesise it (a one-off stall of its event loop) before any step is measured.
    const callSeconds = Math.max(...STEPS) / RAMP_PER_SECOND + SETTLE_SECONDS + WINDOW_SECONDS + 3;
    await warmUp(sim.url, callSeconds, ctx.log);

    const rows: Measurement[] = [];
    for (const calls of STEPS) {
      // Calls arrive at RAMP_PER_SECOND, as a busy line fills, not all in the same millisecond; the
      // window is measured once every call is up, and every call outlasts it.
      ctx.log(`voice: ${calls} calls, ${RAMP_PER_SECOND}/s ramp, then ${WINDOW_SECONDS} s measured`);
      const placed: Promise<string | undefined>[] = [];
      const rampStart = performance.now();
      for (let i = 0; i < calls; i++) {
        const due = rampStart + (i * 1000) / RAMP_PER_SECOND;
        const wait = due - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        placed.push(placeCall(sim.url, i, callSeconds));
      }
      const sids = await Promise.all(placed);
      await new Promise((r) => setTimeout(r, SETTLE_SECONDS * 1000));
      const before = { delay: await frameDelay(base), frames: await phoneFrames(sim.url, sids, ctx.log), cpu: cpuSeconds(pid), phonesCpu: cpuSeconds(simulatorPid) };
      const started = performance.now();
      await new Promise((r) => setTimeout(r, WINDOW_SECONDS * 1000));
      const after = { delay: await frameDelay(base), frames: await phoneFrames(sim.url, sids, ctx.log), cpu: cpuSeconds(pid), phonesCpu: cpuSeconds(simulatorPid) };
      const elapsed = (performance.now() - started) / 1000;
      const sent = after.frames.sent - before.frames.sent;
      const late = after.frames.late - before.frames.late;
      const received = after.frames.received - before.frames.received;
      const phonesCpu = (after.phonesCpu - before.phonesCpu) / elapsed;
      const delay = after.delay.minus(before.delay);
      const realTime = late === 0 && delay.quantileMs(0.99) <= 20 && after.frames.live === calls;
      rows.push({
        label: `voice, ${calls} calls`,
        rate: sent / elapsed,
        p50Ms: delay.quantileMs(0.5),
        p99Ms: delay.quantileMs(0.99),
        responses: sent,
        non2xx: late > 0 ? { 'late frames': late } : {},
        socketErrors: sids.filter((sid) => !sid).length + (after.frames.live < calls ? calls - after.frames.live : 0),
        durationSeconds: elapsed,
        connections: calls,
        // Per second of caller audio the phones actually sent (50 frames): when the phones fall behind on
        // a loaded machine the server gets less to do, and calls × seconds would flatter it.
        cpu: { whose: 'server', cpuSeconds: after.cpu - before.cpu, windowSeconds: elapsed, units: sent / FRAMES_PER_SECOND, unit: 'call-second', scale: 'ms' },
        notes:
          `${realTime ? 'holds real time' : 'does not hold real time'}; in the window: frames in ${sent.toLocaleString('en-US')}, out ${received.toLocaleString('en-US')}, late ${late}; ` +
          `${after.frames.live}/${calls} calls up; phones CPU ${(phonesCpu * 100).toFixed(0)} % of a core; ` +
          'rate = inbound frames/s; p50/p99 = server frame delay',
      });
      await hangUpAll(sim.url);
    }
    return rows;
  },
};

function placeCall(simUrl: string, i: number, seconds: number): Promise<string | undefined> {
  return fetch(`${simUrl}/_sim/phone/call`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      agentId: 'voice-bench',
      from: `+1415555${String(1000 + i).padStart(4, '0')}`,
      to: '+12025550100',
      mode: 'stream',
      // A message long enough to last the whole call: the answering machine records until the caller
      // stops, so every call stays up, and the audio pipeline hears speech, through the window.
      script: { steps: [longMessage(seconds), { kind: 'pause', ms: 5_000 }], maxDurationMs: (seconds + 15) * 1000 },
    }),
  }).then(async (res) => ((await res.json()) as { callSid?: string }).callSid);
}

/** Places one call and waits until its caller has started speaking, then hangs it up. */
async function warmUp(simUrl: string, seconds: number, log: (line: string) => void): Promise<void> {
  log('voice: warm-up call');
  const sid = await placeCall(simUrl, 9999, seconds);
  for (let waited = 0; waited < 30_000; waited += 250) {
    const summaries = (await (await fetch(`${simUrl}/_sim/phone/calls`)).json()) as { calls?: { callSid: string; turns: number }[] };
    if ((summaries.calls ?? []).some((c) => c.callSid === sid && c.turns > 0)) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  await hangUpAll(simUrl);
}

/** Resets the simulator and waits until no call and no media stream is left, so the next step starts from none. */
async function hangUpAll(simUrl: string): Promise<void> {
  await fetch(`${simUrl}/_sim/reset`, { method: 'POST' });
  let pacing = { activeCalls: 0, activeStreams: 0 };
  for (let waited = 0; waited <= 5_000; waited += 100) {
    pacing = (await (await fetch(`${simUrl}/_sim/phone/pacing`)).json()) as typeof pacing;
    if (pacing.activeCalls === 0 && pacing.activeStreams === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`after a reset the simulator still has ${pacing.activeCalls} calls and ${pacing.activeStreams} media streams live`);
}

/** The phone speaks this sentence in about 4.9 s. */
const SENTENCE = 'I would like to leave a message about the delivery of my order please call me back';

function longMessage(seconds: number): string {
  return Array(Math.ceil(seconds / 4.9) + 1).fill(SENTENCE).join(' ');
}

/** The phones' frame counters so far, summed over the given calls, and how many of them are still up. */
async function phoneFrames(simUrl: string, sids: readonly (string | undefined)[], log: (line: string) => void): Promise<{ sent: number; late: number; received: number; live: number }> {
  const summaries = (await (await fetch(`${simUrl}/_sim/phone/calls`)).json()) as {
    calls?: { callSid: string; status?: string; endedBy?: string | null; errors?: string[]; frames?: { sent: number; late: number; received: number } }[];
  };
  const wanted = new Set(sids);
  const mine = (summaries.calls ?? []).filter((s) => wanted.has(s.callSid));
  const down = mine.filter((s) => s.status !== 'in-progress');
  if (down.length > 0) {
    const first = down[0]!;
    log(`voice: ${down.length} calls not up; e.g. ${first.status}, ended by ${first.endedBy ?? '-'}${first.errors?.length ? `: ${first.errors[0]}` : ''}`);
  }
  return {
    sent: mine.reduce((n, s) => n + (s.frames?.sent ?? 0), 0),
    late: mine.reduce((n, s) => n + (s.frames?.late ?? 0), 0),
    received: mine.reduce((n, s) => n + (s.frames?.received ?? 0), 0),
    live: mine.filter((s) => s.status === 'in-progress').length,
  };
}

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
