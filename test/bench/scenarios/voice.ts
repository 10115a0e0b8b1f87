import { rmSync } from 'node:fs';
import { createTestTls } from '../../../runtime/src/testing/test-tls.js';
import { startLiveGateway } from '../live-gateway.js';
import { cpuSeconds } from '../proc.js';
import type { Measurement, Scenario } from '../types.js';
import { EVERY_PHRASE, PHRASES, callerStopTimes, conversation, ledgerFigures, ms, percentile, phoneRecordings, placeCall, readCalls, startBenchAgent } from '../voice-conversations.js';
import { random } from '../../../runtime/test/audio/signals.js';

const STEPS = (process.env.BENCH_VOICE_CALLS ?? '50,100,200,300,400,500').split(',').map(Number);
/** The gate's short run: the first step only. */
const SHORT_STEPS = [50];
/** New calls per second while a step fills up. */
const RAMP_PER_SECOND = Number(process.env.BENCH_VOICE_RAMP ?? 50);
/** After the last call is placed: long enough for every caller to have heard the greeting and be in conversation. */
const SETTLE_SECONDS = 6;
/** The shortest measured window; `--duration` lengthens it. */
const WINDOW_SECONDS = 8;
/** A Media Streams call sends a 20 ms frame 50 times a second. */
const FRAMES_PER_SECOND = 50;
const AGENT = 'voice-bench';

/**
 * Concurrent stream-mode calls from simulator phones. The simulator runs in its own process (the
 * phones' real-time frame clock must not share the server's event loop); the server runs in live mode
 * pointed at it, so every call goes through the signed voice webhook, the signed media WebSocket, the
 * audio pipeline (μ-law, VAD, endpointing), speech-to-text, the agent's signed `call.turn` callback
 * (answered at once by the harness) and TTS with 20 ms pacing. The callers converse: they ask, pause,
 * and interrupt long answers at random points. Steps up the number of calls and reports, per step,
 * the server's frame delay and the phones' late frames (the largest N with p99 < 20 ms and no late
 * frames holds real time), and from every call's ledger (the calls API, read once the step's calls
 * have ended) what Switchboard added to each turn, how long barge-ins took to stop the reply, and the
 * first greeting frame.
 */
export const voice: Scenario = {
  name: 'voice',
  description: `Concurrent stream-mode calls from simulator phones in a separate process that converse and barge in, stepping through ${STEPS.join(', ')} calls.`,
  target: { description: '≥ 1,000 concurrent calls, frame delay p99 < 20 ms, no late frames', maxP99Ms: 20, minConnections: 1000 },
  async run(ctx) {
    const tls = createTestTls();
    ctx.defer(() => rmSync(tls.dir, { recursive: true, force: true }));
    const { url: base, orchestratorToken, sim, pid, simulatorPid } = await startLiveGateway(ctx, {
      name: 'voice',
      simulatorArgs: ['--no-status-callbacks'],
      // The agent's callback URL is https (production), with a certificate of the run's own CA, on
      // loopback (a private address, allowed here as an operator would for agents on their network).
      env: { VOICE_MODE: 'stream', NODE_EXTRA_CA_CERTS: tls.caFile, CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    const agent = await startBenchAgent(base, orchestratorToken, AGENT, tls);
    ctx.defer(agent.close);
    const windowSeconds = Math.max(WINDOW_SECONDS, ctx.durationSeconds);
    const steps = ctx.short ? SHORT_STEPS : STEPS;
    // Every call outlasts its step: enough turns for the ramp, the settling and the window.
    const callSeconds = Math.max(...steps) / RAMP_PER_SECOND + SETTLE_SECONDS + windowSeconds + 3;
    await warmUp(sim.url, ctx.log);

    const rows: Measurement[] = [];
    for (const calls of steps) {
      // Calls arrive at RAMP_PER_SECOND, as a busy line fills, not all in the same millisecond; the
      // window is measured once every call is up, and every call outlasts it.
      ctx.log(`voice: ${calls} calls, ${RAMP_PER_SECOND}/s ramp, then ${windowSeconds} s measured`);
      const next = random(calls);
      const placed: Promise<string | undefined>[] = [];
      const rampStart = performance.now();
      for (let i = 0; i < calls; i++) {
        const due = rampStart + (i * 1000) / RAMP_PER_SECOND;
        const wait = due - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        const { steps } = conversation(next, Math.ceil(callSeconds / 2) + 4);
        placed.push(placeCall(sim.url, AGENT, i, { steps, maxDurationMs: (callSeconds + 60) * 1000 }));
      }
      const sids = await Promise.all(placed);
      await new Promise((r) => setTimeout(r, SETTLE_SECONDS * 1000));
      const before = { delay: await frameDelay(base), frames: await phoneFrames(sim.url, sids, ctx.log), cpu: cpuSeconds(pid), phonesCpu: cpuSeconds(simulatorPid), answered: agent.answered() };
      const started = performance.now();
      const from = Date.now();
      await new Promise((r) => setTimeout(r, windowSeconds * 1000));
      const after = { delay: await frameDelay(base), frames: await phoneFrames(sim.url, sids, ctx.log), cpu: cpuSeconds(pid), phonesCpu: cpuSeconds(simulatorPid), answered: agent.answered() };
      const to = Date.now();
      const elapsed = (performance.now() - started) / 1000;
      const sent = after.frames.sent - before.frames.sent;
      const late = after.frames.late - before.frames.late;
      const received = after.frames.received - before.frames.received;
      const phonesCpu = (after.phonesCpu - before.phonesCpu) / elapsed;
      const delay = after.delay.minus(before.delay);
      const realTime = late === 0 && delay.quantileMs(0.99) <= 20 && after.frames.live === calls;
      // The phones' recordings go with the reset; the ledgers are written as each call's media closes.
      const up = sids.filter((sid): sid is string => sid !== undefined);
      const felt = callerStopTimes(await phoneRecordings(sim.url, up), from, to);
      await hangUpAll(sim.url);
      const figures = ledgerFigures(await readCalls(base, agent.token, up), from, to);
      const callSecondsSent = sent / FRAMES_PER_SECOND;
      const summary =
        `turns: ${figures.turns} started in the window (${(figures.turns / callSecondsSent).toFixed(3)} per call-second; the agent answered ${after.answered - before.answered}), ` +
        `Switchboard added p50 ${ms(figures.addedP50)} ms, p99 ${ms(figures.addedP99)} ms, max ${ms(figures.addedMax)} ms (target p99 < 20); ` +
        `barge-in stop p99 ${ms(figures.stopP99)} ms over ${figures.bargeIns} (target < 60; from our endpointing's speech start), as the caller hears it p99 ${ms(percentile(felt, 0.99))} ms over ${felt.length} (the phone's speech start to the clear reaching it); ` +
        `first greeting frame p50 ${ms(figures.greetingP50)} ms, p99 ${ms(figures.greetingP99)} ms over ${figures.greetings} calls (target p99 < 300; text-to-speech asked after p99 ${ms(figures.greetingAskedP99)} ms, took p99 ${ms(figures.greetingTtsP99)} ms)`;
      ctx.log(`voice: ${calls} calls: ${summary}`);
      if (figures.worst) ctx.log(`voice: ${calls} calls: the turn Switchboard added most to: ${JSON.stringify({ stamps: figures.worst.stamps, components: figures.worst.components })}`);
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
        cpu: { whose: 'server', cpuSeconds: after.cpu - before.cpu, windowSeconds: elapsed, units: callSecondsSent, unit: 'call-second', scale: 'ms' },
        notes:
          `${realTime ? 'holds real time' : 'does not hold real time'}; in the window: frames in ${sent.toLocaleString('en-US')}, out ${received.toLocaleString('en-US')}, late ${late}; ` +
          `${after.frames.live}/${calls} calls up; phones CPU ${(phonesCpu * 100).toFixed(0)} % of a core; ${summary}; ` +
          'rate = inbound frames/s; p50/p99 = server frame delay',
      });
    }
    return rows;
  },
};

/** One call per phrase, at once, so that the simulator synthesises every phrase and every reply before any step is measured. */
async function warmUp(simUrl: string, log: (line: string) => void): Promise<void> {
  log('voice: warm-up calls');
  const phrases = EVERY_PHRASE.filter((p) => p !== PHRASES.goodbye);
  const sids = await Promise.all(phrases.map((phrase, i) => placeCall(simUrl, AGENT, 9000 + i, { steps: [phrase, PHRASES.goodbye], maxDurationMs: 40_000 })));
  for (let waited = 0; waited < 40_000; waited += 250) {
    const summaries = (await (await fetch(`${simUrl}/_sim/phone/calls`)).json()) as { calls?: { callSid: string; status: string }[] };
    const ended = (summaries.calls ?? []).filter((c) => sids.includes(c.callSid) && !['queued', 'ringing', 'in-progress'].includes(c.status));
    if (ended.length === sids.length) break;
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
