import { rmSync } from 'node:fs';
import { createTestTls } from '../../../runtime/src/testing/test-tls.js';
import { startLiveGateway } from '../live-gateway.js';
import { cpuSeconds } from '../proc.js';
import type { Measurement, Scenario } from '../types.js';
import { callerStopTimes, conversation, ledgerFigures, ms, percentile, phoneRecordings, placeCall, readCalls, startBenchAgent, type CallDetail, type PhoneRecording } from '../voice-conversations.js';
import { random } from '../../../runtime/test/audio/signals.js';

const TURNS = Number(process.env.BENCH_VOICE_TURNS ?? 10_000);
/** Calls up at once; each says its share of the turns. */
const CALLS = Number(process.env.BENCH_VOICE_TURN_CALLS ?? 250);
const RAMP_PER_SECOND = Number(process.env.BENCH_VOICE_RAMP ?? 50);
/** Share of the calls whose caller hangs up at a random moment instead of saying goodbye. */
const HANG_UP_SHARE = 0.1;
const FRAMES_PER_SECOND = 50;
const AGENT = 'voice-turns';

/**
 * No stuck state: `BENCH_VOICE_TURNS` caller turns (10,000) over `BENCH_VOICE_TURN_CALLS` concurrent
 * stream-mode calls whose callers ask, pause and barge in on long answers at random points; most end
 * with a goodbye the agent answers by hanging up, a tenth with the caller hanging up at a random
 * moment. Once every call has ended, every call's ledger is read through the calls API and checked
 * against what its phone lived: every call ended, on both sides; every caller utterance is a turn of the
 * ledger (a caller who hung up may leave the last one unheard); every turn was answered, or says why
 * not; no phone waited in vain for a reply; no call is left live on the server.
 */
export const voiceTurns: Scenario = {
  name: 'voice-turns',
  description: `${TURNS.toLocaleString('en-US')} caller turns with random interruptions over ${CALLS} concurrent stream-mode calls; every call's ledger checked against its phone.`,
  target: { description: 'no stuck state: every call ends; every turn answered, or recorded unanswered with its reason' },
  async run(ctx) {
    const tls = createTestTls();
    ctx.defer(() => rmSync(tls.dir, { recursive: true, force: true }));
    const { url: base, orchestratorToken, sim, pid } = await startLiveGateway(ctx, {
      name: 'voice-turns',
      simulatorArgs: ['--no-status-callbacks'],
      env: { VOICE_MODE: 'stream', NODE_EXTRA_CA_CERTS: tls.caFile, CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    const agent = await startBenchAgent(base, orchestratorToken, AGENT, tls);
    ctx.defer(agent.close);
    // One more utterance per call than the even share: callers who hang up leave some unheard.
    const perCall = Math.ceil(TURNS / CALLS) + 1;
    const next = random(TURNS);
    const maxDurationMs = perCall * 15_000;
    ctx.log(`voice-turns: ${CALLS} calls of ${perCall} utterances each, ${RAMP_PER_SECOND}/s ramp`);
    const cpuBefore = cpuSeconds(pid);
    const started = performance.now();
    const placed: { sid: Promise<string | undefined>; hangsUp: boolean }[] = [];
    for (let i = 0; i < CALLS; i++) {
      const due = started + (i * 1000) / RAMP_PER_SECOND;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const { steps, hangsUp } = conversation(next, perCall, { hangUpShare: HANG_UP_SHARE });
      placed.push({ sid: placeCall(sim.url, AGENT, i, { steps, maxDurationMs }), hangsUp });
    }
    const sids = await Promise.all(placed.map((p) => p.sid));
    const hangsUp = new Map(sids.flatMap((sid, i) => (sid ? [[sid, placed[i]!.hangsUp] as const] : [])));
    const up = [...hangsUp.keys()];

    // Every call ends by itself (the agent's goodbye, or the caller); one that outlives its phone's limit is stuck.
    const deadline = performance.now() + maxDurationMs + 30_000;
    let live = up.length;
    let lastLog = 0;
    while (live > 0 && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      const summaries = (await (await fetch(`${sim.url}/_sim/phone/calls`)).json()) as { calls?: { callSid: string; status: string; frames?: { sent: number } }[] };
      live = (summaries.calls ?? []).filter((c) => hangsUp.has(c.callSid) && ['queued', 'ringing', 'in-progress'].includes(c.status)).length;
      if (performance.now() - lastLog > 15_000) {
        lastLog = performance.now();
        ctx.log(`voice-turns: ${live} calls live, the agent answered ${agent.answered().toLocaleString('en-US')} turns`);
      }
    }
    const elapsed = (performance.now() - started) / 1000;
    const recordings = await phoneRecordings(sim.url, up);
    const cpu = cpuSeconds(pid) - cpuBefore;
    const calls = await readCalls(base, agent.token, up);
    const problems = check(up, hangsUp, recordings, calls);
    const activeCalls = await liveCallsOnServer(base);
    if (activeCalls > 0) problems.push(`${activeCalls} calls still live on the server (switchboard_voice_calls_active)`);

    const turns = calls.flatMap((c) => c.ledger?.turns ?? []);
    const unanswered = new Map<string, number>();
    for (const t of turns) if (t.unanswered !== null) unanswered.set(t.unanswered, (unanswered.get(t.unanswered) ?? 0) + 1);
    const figures = ledgerFigures(calls);
    const felt = callerStopTimes(recordings);
    const callSeconds = recordings.reduce((n, r) => n + r.frames.sent, 0) / FRAMES_PER_SECOND;
    const kinds = new Map<string, number>();
    for (const p of problems) kinds.set(p.split(':')[0]!, (kinds.get(p.split(':')[0]!) ?? 0) + 1);
    for (const p of problems.slice(0, 10)) ctx.log(`voice-turns: ${p}`);
    const summary =
      `${turns.length.toLocaleString('en-US')} turns in ${up.length} calls (${calls.filter((c) => c.ledger).length} ledgers), ` +
      `${figures.answered.toLocaleString('en-US')} answered, unanswered: ${[...unanswered].map(([why, n]) => `${why} ${n}`).join(', ') || 'none'}; ` +
      `${problems.length} problems${problems.length ? ` (${[...kinds].map(([k, n]) => `${k} ×${n}`).join(', ')})` : ''}; ` +
      `${(turns.length / callSeconds).toFixed(3)} turns per call-second; Switchboard added p50 ${ms(figures.addedP50)} ms, p99 ${ms(figures.addedP99)} ms, max ${ms(figures.addedMax)} ms; ` +
      `barge-in stop p99 ${ms(figures.stopP99)} ms over ${figures.bargeIns}, as the caller hears it p99 ${ms(percentile(felt, 0.99))} ms over ${felt.length}; ` +
      `first greeting frame p99 ${ms(figures.greetingP99)} ms (text-to-speech asked after p99 ${ms(figures.greetingAskedP99)} ms, took p99 ${ms(figures.greetingTtsP99)} ms)`;
    ctx.log(`voice-turns: ${summary}`);
    if (figures.worst) ctx.log(`voice-turns: the turn Switchboard added most to: ${JSON.stringify({ stamps: figures.worst.stamps, components: figures.worst.components })}`);
    return [
      {
        label: `voice turns, ${turns.length.toLocaleString('en-US')} with random interruptions`,
        rate: turns.length / elapsed,
        p50Ms: figures.addedP50,
        p99Ms: figures.addedP99,
        responses: turns.length,
        non2xx: Object.fromEntries(kinds),
        socketErrors: 0,
        durationSeconds: elapsed,
        connections: CALLS,
        cpu: { whose: 'server', cpuSeconds: cpu, windowSeconds: elapsed, units: callSeconds, unit: 'call-second', scale: 'ms' },
        notes: `${summary}; rate = turns/s over the whole run; p50/p99 = what Switchboard added per turn (ledger); errors = problems found`,
      } satisfies Measurement,
    ];
  },
};

/** What is wrong with the calls, one line each, prefixed by its kind. */
function check(sids: readonly string[], hangsUp: ReadonlyMap<string, boolean>, recordings: readonly PhoneRecording[], calls: readonly CallDetail[]): string[] {
  const problems: string[] = [];
  const phones = new Map(recordings.map((r) => [r.callSid, r]));
  const ledgers = new Map(calls.map((c) => [c.callSid, c]));
  for (const sid of sids) {
    const phone = phones.get(sid);
    const call = ledgers.get(sid);
    const callerHungUp = hangsUp.get(sid) === true;
    if (!phone || ['queued', 'ringing', 'in-progress'].includes(phone.status)) problems.push(`call not ended: ${sid} (phone ${phone?.status ?? 'unknown'})`);
    // The agent ends a stream call by closing its media stream: the phone's TwiML then runs out.
    else if (callerHungUp ? phone.endedBy !== 'caller' : phone.endedBy !== 'twiml-end' && phone.endedBy !== 'agent' && !call?.ledger?.turns.at(-1)?.unanswered) problems.push(`call ended by the wrong side: ${sid} ended by ${phone.endedBy ?? '-'}`);
    if (phone && phone.errors.length > 0) problems.push(`phone error: ${sid}: ${phone.errors[0]}`);
    if (!call) {
      problems.push(`call not found: ${sid}`);
      continue;
    }
    if (!['completed', 'busy', 'no-answer', 'failed', 'canceled'].includes(call.status)) problems.push(`call status not final: ${sid} is ${call.status}`);
    if (!call.ledger) {
      problems.push(`ledger missing: ${sid}`);
      continue;
    }
    const turns = call.ledger.turns;
    for (const t of turns) if (t.latencyMs === null && t.unanswered === null) problems.push(`turn without reply or reason: ${sid} turn ${t.turn}`);
    // Speech-to-text may give no words for an utterance: that turn is recorded with its reason, and its phone waits in vain.
    const notTranscribed = turns.filter((t) => t.unanswered === 'not-transcribed').length;
    const unanswered = turns.filter((t) => t.unanswered !== null && t.unanswered !== 'not-transcribed');
    // Only a caller's hang-up may leave a turn unanswered: the one in progress when the line went.
    if (!callerHungUp && unanswered.length > 0) problems.push(`unanswered turn in a call the agent ended: ${sid} turn ${unanswered[0]!.turn} (${unanswered[0]!.unanswered})`);
    if (callerHungUp && unanswered.length > 1) problems.push(`more than the last turn unanswered: ${sid} (${unanswered.length})`);
    if (unanswered.some((t) => t.turn !== turns.length)) problems.push(`an unanswered turn before the last: ${sid}`);
    if (!phone) continue;
    const said = phone.turns.filter((t) => t.caller?.text).length;
    if (callerHungUp ? turns.length < said - 1 || turns.length > said : turns.length !== said) problems.push(`utterances and turns differ: ${sid} said ${said}, ledger ${turns.length}`);
    // A wait cut short by the line closing counts as timed out on the phone; a reply that came is no wait in vain.
    const waited = phone.turns.filter((t) => t.timedOut && t.agent.firstAt === undefined);
    if (waited.length > notTranscribed) problems.push(`phone waited in vain: ${sid} turn ${waited[0]!.index}`);
  }
  return problems;
}

/** The server's count of calls it holds live, from /metrics. */
async function liveCallsOnServer(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const match = /^switchboard_voice_calls_active(?:\{[^}]*\})? (\d+)/m.exec(text);
  return match ? Number(match[1]) : 0;
}
