// Media pacing of many simultaneous stream-mode calls from the simulator's phone.
//   node --conditions=switchboard-source --import tsx simulator/test/phone-pacing.bench.ts [calls=50] [seconds=10]
// The stand-in gateway runs in a child process (as the real gateway would), so the figures are the
// phone's own: frames sent against the 20 ms grid, late frames (> 20 ms behind), jitter, tick cost.
// BENCH_TRACE=1 prints active streams, CPU and late ticks every second.
import { fork } from 'node:child_process';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '../src/index.js';
import { startFakeGateway } from './phone-gateway.js';

if (process.argv[2] === '--gateway') {
  const gateway = await startFakeGateway(process.env['SIM_AUTH_TOKEN']!, { bench: { mode: 'stream', greeting: 'Hello caller', replyChars: () => 40 } });
  process.send!({ url: gateway.url });
  let cpu = process.cpuUsage();
  let since = performance.now();
  let steadyFrom = Number.POSITIVE_INFINITY;
  let steadyTo = Number.POSITIVE_INFINITY;
  process.on('message', (m) => {
    if (typeof m === 'object' && m !== null && 'steadyFrom' in m) {
      // Epoch ms from the parent, turned into this process's performance time.
      const window = m as unknown as { steadyFrom: number; steadyTo: number };
      steadyFrom = window.steadyFrom - performance.timeOrigin;
      steadyTo = window.steadyTo - performance.timeOrigin;
      return;
    }
    if (m === 'begin') {
      cpu = process.cpuUsage();
      since = performance.now();
      return;
    }
    const used = process.cpuUsage(cpu);
    const cpuPercent = +(((used.user + used.system) / 1000 / (performance.now() - since)) * 100).toFixed(1);
    const rates = gateway.streams
      .filter((s) => s.arrivals.length > 50)
      .map((s) => (s.arrivals.length - 1) / ((s.arrivals.at(-1)! - s.arrivals[0]!) / 1000))
      .sort((a, b) => a - b);
    const gaps = gateway.streams.flatMap((s) => s.arrivals.slice(1).map((t, i) => t - s.arrivals[i]!)).sort((a, b) => a - b);
    const steady = gateway.streams
      .flatMap((s) => s.arrivals.slice(1).flatMap((t, i) => (t >= steadyFrom && t <= steadyTo ? [t - s.arrivals[i]!] : [])))
      .sort((a, b) => a - b);
    const steadyGaps = {
      p99: +(steady[Math.floor(steady.length * 0.99)] ?? 0).toFixed(1),
      max: +(steady.at(-1) ?? 0).toFixed(1),
      percentOver40ms: +((steady.filter((g) => g > 40).length / Math.max(1, steady.length)) * 100).toFixed(2),
    };
    process.send!({ cpuPercent, steadyGaps, streams: gateway.streams.length, rates, p99GapMs: gaps[Math.floor(gaps.length * 0.99)] ?? 0, maxGapMs: gaps.at(-1) ?? 0, clears: gateway.streams.reduce((n, s) => n + s.clears, 0) }, () => process.exit(0));
  });
} else {
  const calls = Number(process.argv[2] ?? 50);
  const seconds = Number(process.argv[3] ?? 10);
  const sim = await startSimulator({ phone: { recordAudioMs: 0 } });
  const child = fork(fileURLToPath(import.meta.url), ['--gateway'], {
    execArgv: ['--conditions=switchboard-source', '--import', 'tsx'],
    env: { ...process.env, SIM_AUTH_TOKEN: sim.credentials.twilio.authToken },
  });
  const next = () => new Promise<Record<string, unknown>>((resolve) => child.once('message', (m) => resolve(m as Record<string, unknown>)));
  sim.gatewayUrl = String((await next())['url']);

  child.send('begin');
  const cpu = process.cpuUsage();
  const started = performance.now();
  if (process.env['BENCH_TRACE']) {
    let last = { cpu: process.cpuUsage(), pacing: sim.phone.pacing() };
    setInterval(() => {
      const now = { cpu: process.cpuUsage(), pacing: sim.phone.pacing() };
      const used = (now.cpu.user + now.cpu.system - last.cpu.user - last.cpu.system) / 1e4;
      console.error(`t=${((performance.now() - started) / 1000).toFixed(0)}s streams=${now.pacing.activeStreams} calls=${now.pacing.activeCalls} cpu=${used.toFixed(0)}% ticks=${now.pacing.ticks - last.pacing.ticks} late=${now.pacing.lateTicks - last.pacing.lateTicks}`);
      last = now;
    }, 1000).unref();
  }
  const placed = [];
  for (let i = 0; i < calls; i++) {
    placed.push(
      sim.phone.call({
        agentId: 'bench',
        from: `+1555100${String(i).padStart(4, '0')}`,
        to: '+15555550100',
        script: { stayOnLine: true, maxDurationMs: seconds * 1000, quietMs: 300, steps: ['Hello there, this is a load test', 'Tell me more please', { kind: 'pause', ms: 500 }, 'Thank you'] },
      }),
    );
    // Calls arrive over about a second, not all in the same millisecond.
    await new Promise((r) => setTimeout(r, 1000 / calls));
  }
  const phoneCalls = await Promise.all(placed);
  // Steady state: every stream connected, until the first call ends.
  while (sim.phone.pacing().activeStreams < calls && performance.now() - started < seconds * 1000) await new Promise((r) => setTimeout(r, 20));
  const steadyStart = { at: Date.now(), pacing: sim.phone.pacing() };
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  await Promise.race(phoneCalls.map((c) => c.done));
  loopDelay.disable();
  const steadyEnd = { at: Date.now(), pacing: sim.phone.pacing() };
  child.send({ steadyFrom: steadyStart.at, steadyTo: steadyEnd.at });
  const recordings = await Promise.all(phoneCalls.map((c) => c.done));
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  child.send('stats');
  const gateway = await next();
  await sim.close();

  const frames = recordings.map((r) => r.frames);
  const sent = frames.reduce((n, f) => n + f.sent, 0);
  const late = frames.reduce((n, f) => n + f.late, 0);
  const maxJitters = frames.map((f) => f.maxJitterMs).sort((a, b) => a - b);
  const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;
  const rates = gateway['rates'] as number[];
  const pacing = sim.phone.pacing();
  console.log(
    JSON.stringify(
      {
        calls,
        secondsPerCall: seconds,
        ended: recordings.map((r) => r.endedBy).filter((e) => e !== 'timeout').length === 0 ? 'all by maxDuration' : recordings.map((r) => r.endedBy),
        errors: recordings.flatMap((r) => r.errors).slice(0, 5),
        framesSent: sent,
        framesPerCallPerSecond: +(sent / calls / seconds).toFixed(2),
        lateFrames: late,
        latePercent: +((late / sent) * 100).toFixed(3),
        meanJitterMs: +(frames.reduce((n, f) => n + f.meanJitterMs, 0) / calls).toFixed(2),
        maxJitterMs: { p50: +pct(maxJitters, 0.5).toFixed(1), p99: +pct(maxJitters, 0.99).toFixed(1), max: +(maxJitters.at(-1) ?? 0).toFixed(1) },
        tickCostMs: { mean: +pacing.meanTickCostMs.toFixed(3), max: +pacing.maxTickCostMs.toFixed(1) },
        lateTicks: pacing.lateTicks,
        skippedTicks: pacing.skippedTicks,
        ticks: pacing.ticks,
        steadyState: {
          seconds: +((steadyEnd.at - steadyStart.at) / 1000).toFixed(1),
          streams: steadyStart.pacing.activeStreams,
          ticks: steadyEnd.pacing.ticks - steadyStart.pacing.ticks,
          lateTicks: steadyEnd.pacing.lateTicks - steadyStart.pacing.lateTicks,
          eventLoopDelayMs: { p50: +(loopDelay.percentile(50) / 1e6).toFixed(1), p99: +(loopDelay.percentile(99) / 1e6).toFixed(1), max: +(loopDelay.max / 1e6).toFixed(1) },
          gatewayArrivalGapMs: gateway['steadyGaps'],
        },
        simulatorCpuPercentOfOneCore: +(((used.user + used.system) / 1e6 / wall) * 100).toFixed(1),
        gatewaySide: {
          cpuPercentOfOneCore: gateway['cpuPercent'],
          streams: gateway['streams'],
          frameRate: { min: +(rates[0] ?? 0).toFixed(2), median: +pct(rates, 0.5).toFixed(2), max: +(rates.at(-1) ?? 0).toFixed(2) },
          p99ArrivalGapMs: +(gateway['p99GapMs'] as number).toFixed(1),
          maxArrivalGapMs: +(gateway['maxGapMs'] as number).toFixed(1),
          clears: gateway['clears'],
        },
      },
      null,
      2,
    ),
  );
}
