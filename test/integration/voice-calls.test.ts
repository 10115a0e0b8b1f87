import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CallRecording } from '@switchboard/provider-simulator';
import { echoReply, startCallAnswerer, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { capturingLogger } from '../helpers/capturing-logger.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { eventually } from '@switchboard/runtime/testing';

const CALLER = '+14155550123';
const CALLEE = '+14155550848';

type Stamps = Record<'transcriptReady' | 'agentAsked' | 'replyBegan' | 'replyEnded' | 'ttsAsked' | 'ttsFirstAudio' | 'firstFrameSent', number | null>;
interface LedgerTurn {
  turn: number;
  at: string;
  endpointingMs: number | null;
  stamps: Stamps;
  components: Record<'transcriptionMs' | 'agentMs' | 'ttsMs' | 'switchboardMs', number | null>;
  latencyMs: number | null;
  unanswered: 'call-ended' | 'no-reply' | 'failed' | null;
  bargeIns: { atMs: number; stopMs: number | null }[];
}
interface Summary {
  durationSeconds: number;
  turns: number;
  turnLatencyMs: { p50: number; p95: number } | null;
  switchboardAddedMs: { p95: number } | null;
}
interface CallBody {
  callId: string;
  traceparent: string | null;
  callSid: string;
  agentId: string;
  direction: string;
  mode: string;
  status: string;
  from: string;
  to: string;
  connectedAt: string | null;
  endedAt: string | null;
  summary: Summary | null;
  ledger: { greeting: LedgerTurn | null; turns: LedgerTurn[] } | null;
  transcript: { turn: number; role: 'caller' | 'agent'; text: string; at: string; interrupted: boolean }[];
}

/** Stamps present in a turn come in the order the turn runs them; every component is non-negative. */
function assertOrdered(turn: LedgerTurn, mode: 'relay' | 'stream'): void {
  const s = turn.stamps;
  const order = (mode === 'stream' ? ['transcriptReady', 'agentAsked', 'replyBegan', 'replyEnded', 'ttsAsked', 'ttsFirstAudio', 'firstFrameSent'] : ['agentAsked', 'replyBegan', 'replyEnded', 'firstFrameSent']) as (keyof Stamps)[];
  const present = order.map((name) => [name, s[name]] as const).filter(([, value]) => value !== null);
  for (let i = 0; i < present.length; i++) {
    assert.ok(present[i]![1]! >= (i === 0 ? 0 : present[i - 1]![1]!), `turn ${turn.turn}: ${present[i]![0]} (${present[i]![1]}) comes after ${i === 0 ? 'the start' : present[i - 1]![0]} in ${JSON.stringify(s)}`);
  }
  if (mode === 'relay') assert.deepEqual([s.transcriptReady, s.ttsAsked, s.ttsFirstAudio], [null, null, null], 'relay mode has no speech steps of ours');
  for (const [name, value] of Object.entries(turn.components)) assert.ok(value === null || value >= 0, `turn ${turn.turn}: ${name} ${value}`);
  if (turn.latencyMs !== null) {
    assert.equal(turn.latencyMs, s.firstFrameSent);
    const { transcriptionMs, agentMs, ttsMs, switchboardMs } = turn.components;
    assert.ok(switchboardMs !== null && switchboardMs >= 0);
    // The parts add up to the whole (to rounding).
    assert.ok(Math.abs((transcriptionMs ?? 0) + (agentMs ?? 0) + (ttsMs ?? 0) + switchboardMs - turn.latencyMs) <= 0.5, JSON.stringify(turn));
    assert.ok(turn.latencyMs < 10_000, `a plausible latency: ${turn.latencyMs} ms`);
  }
}

/** What the phone said and heard, as the transcript should hold it. */
function spoken(recording: CallRecording): { turn: number; role: string; text: string }[] {
  return recording.turns.flatMap((turn) => [
    ...(turn.caller?.text ? [{ turn: turn.index, role: 'caller', text: turn.caller.text }] : []),
    ...(turn.agent.text ? [{ turn: turn.index, role: 'agent', text: turn.agent.text }] : []),
  ]);
}

/** The W3C trace context the agent places its stream call with. */
const TRACE = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('the calls API: each call with its per-turn latency ledger and transcript, in relay and stream mode', () => {
  const captured = capturingLogger();
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let other: Awaited<ReturnType<typeof provisionAgent>>;
  let receiver: CallbackReceiver;
  let relaySid = '';
  let streamSid = '';

  const get = async (path: string, token: string) => {
    const res = await t.call('GET', path, { token });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /** The call's end event, once the receiver has it. */
  const ended = async (callSid: string) => {
    const event = await eventually(() => receiver.events.find((e) => e.event.type === 'call.status' && e.event.data.callSid === callSid && e.event.data.status === 'completed'), {
      intervalMs: 50,
      message: () => `a completed call.status event for ${callSid}: ${JSON.stringify(receiver.events.map((e) => e.event.type))}`,
    });
    return event.event.data as { summary?: Summary; durationSeconds: number | null };
  };

  /** The count of a histogram series on the gateway's /metrics (0 when absent). */
  const observed = async (series: string) => {
    const metrics = await (await t.call('GET', '/metrics')).text();
    const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
    return line ? Number(line.slice(series.length + 1)) : 0;
  };

  before(async () => {
    t = await startTestGateway({ VOICE_MODE: 'relay' }, undefined, { logger: captured.logger });
    agent = await provisionAgent(t, 'calls-agent', ['voice'], { greeting: 'Hello from the calls agent.' });
    other = await provisionAgent(t, 'calls-other', ['voice']);
    receiver = await startCallAnswerer((callbackUrl) => t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl } }), echoReply);
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('relay: one ledger entry per turn with ordered stamps, the transcript as the phone heard it, and the end event with its summary', async () => {
    const call = await t.sim.phone.call({ agentId: agent.agentId, from: CALLER, to: agent.channels.voice!.address, mode: 'relay', script: { steps: ['What time do you open?', 'Thanks, bye'], stayOnLine: true } });
    const recording = await call.done;
    assert.deepEqual(recording.errors, []);
    relaySid = recording.callSid;
    const event = await ended(relaySid);

    const { status, body } = await get(`/api/v1/calls/${relaySid}`, agent.securityToken);
    assert.equal(status, 200, JSON.stringify(body));
    const detail = body as unknown as CallBody;
    assert.deepEqual(
      [detail.callId, detail.agentId, detail.direction, detail.mode, detail.status, detail.from, detail.to],
      [relaySid, agent.agentId, 'inbound', 'relay', 'completed', CALLER, agent.channels.voice!.address],
    );
    assert.ok(detail.connectedAt && detail.endedAt && detail.endedAt >= detail.connectedAt);
    assert.equal(detail.ledger!.turns.length, 2, 'one entry per caller turn');
    assert.deepEqual(detail.ledger!.turns.map((turn) => turn.turn), [1, 2]);
    for (const turn of detail.ledger!.turns) {
      assertOrdered(turn, 'relay');
      assert.notEqual(turn.stamps.agentAsked, null, 'the agent was asked');
      assert.notEqual(turn.latencyMs, null, 'the reply was sent');
      assert.equal(turn.unanswered, null);
    }
    const greeting = detail.ledger!.greeting!;
    assert.equal(greeting.turn, 0);
    assert.ok(greeting.latencyMs !== null && greeting.latencyMs >= 0 && greeting.latencyMs < 5000, `first greeting ${greeting.latencyMs} ms after the media started`);

    assert.deepEqual(detail.transcript.map(({ turn, role, text }) => ({ turn, role, text })), spoken(recording));
    assert.ok(detail.transcript.every((line) => !line.interrupted));

    assert.equal(detail.summary!.turns, 2);
    assert.ok(detail.summary!.turnLatencyMs!.p50 <= detail.summary!.turnLatencyMs!.p95);
    assert.ok(detail.summary!.switchboardAddedMs!.p95 >= 0);
    assert.deepEqual(event.summary, detail.summary, 'the call.status event that ends the call carries the same summary');

    // The agent's inbox has the call's status changes and, once its media closed, its transcript.
    const inbox = await get(`/api/v1/inbox?after=0&channel=voice`, agent.securityToken);
    const entries = (inbox.body.entries as { type: string; status: string | null; counterpart: string; conversationId: string; payload: { callSid: string; transcript?: unknown[] } }[]).filter(
      (e) => e.payload.callSid === relaySid,
    );
    const statuses = entries.filter((e) => e.type === 'call.status').map((e) => e.status);
    assert.equal(statuses[0], 'ringing', `the call's start first: ${statuses.join()}`);
    assert.equal(statuses.at(-1), 'completed');
    assert.equal(new Set(statuses).size, statuses.length, `each status once: ${statuses.join()}`);
    assert.ok(entries.every((e) => e.counterpart === CALLER && e.conversationId === entries[0]!.conversationId));
    const transcripts = entries.filter((e) => e.type === 'call.transcript');
    assert.equal(transcripts.length, 1);
    assert.deepEqual(transcripts[0]!.payload.transcript, detail.transcript);
    // The call is in the conversation's timeline with its transcript.
    const conversation = await get(`/api/v1/conversations/${entries[0]!.conversationId}`, agent.securityToken);
    const inTimeline = (conversation.body.items as { kind: string; id: string; transcript: unknown }[]).find((i) => i.kind === 'call' && i.id === relaySid);
    assert.deepEqual(inTimeline?.transcript, detail.transcript);

    // Each caller turn is observed once, as it ends, in the metrics of the process holding the call.
    assert.equal(await observed('switchboard_voice_turn_latency_seconds_count{mode="relay"}'), 2);
    for (const part of ['agent', 'switchboard']) assert.equal(await observed(`switchboard_voice_turn_part_seconds_count{mode="relay",part="${part}"}`), 2, part);
    assert.equal(await observed('switchboard_voice_turn_part_seconds_count{mode="relay",part="tts"}'), 0, 'relay mode synthesises no speech');
  });

  it('stream: transcription and speech stamps in each turn, a barge-in with its stop time, the interrupted reply marked', async () => {
    for (const phrase of ['tell me something long', 'stop please']) t.sim.deepgram.registerPhrase(phrase);
    t.sim.phone.onOutbound(CALLEE, { steps: ['tell me something long', { kind: 'say', text: 'stop please', bargeIn: true, afterMs: 1200 }], replyTimeoutMs: 8000 });
    const res = await t.call('POST', '/api/v1/make-call', { token: agent.securityToken, headers: { traceparent: TRACE }, json: { to: CALLEE, mode: 'stream', greeting: 'This is the calls agent.' } });
    assert.equal(res.status, 200, await res.clone().text());
    streamSid = ((await res.json()) as { callSid: string }).callSid;
    const recording = await t.sim.phone.get(streamSid)!.done;
    assert.deepEqual(recording.errors, []);
    assert.ok(recording.clears.length >= 1, 'the caller barged in');
    await ended(streamSid);

    const detail = (await get(`/api/v1/calls/${streamSid}`, agent.securityToken)).body as unknown as CallBody;
    assert.deepEqual([detail.direction, detail.mode, detail.to], ['outbound', 'stream', CALLEE]);
    const turns = detail.ledger!.turns;
    assert.equal(turns.length, 2, JSON.stringify(turns));
    for (const turn of turns) {
      assertOrdered(turn, 'stream');
      assert.ok(turn.stamps.transcriptReady !== null && turn.endpointingMs !== null && turn.endpointingMs > 0, 'our endpointing and speech-to-text were stamped');
    }
    const first = turns[0]!;
    assert.ok(first.stamps.ttsAsked !== null && first.stamps.ttsFirstAudio !== null && first.latencyMs !== null, JSON.stringify(first));
    assert.equal(first.bargeIns.length, 1, 'the long reply was barged in on');
    assert.ok(first.bargeIns[0]!.stopMs !== null && first.bargeIns[0]!.stopMs >= 0 && first.bargeIns[0]!.stopMs < 60, `stopped in ${first.bargeIns[0]!.stopMs} ms`);
    assert.ok(first.bargeIns[0]!.atMs > first.latencyMs!, 'the barge-in came while the reply played');
    const greeting = detail.ledger!.greeting!;
    assert.ok(greeting.stamps.ttsFirstAudio !== null && greeting.latencyMs !== null && greeting.latencyMs >= greeting.stamps.ttsFirstAudio);

    const callers = detail.transcript.filter((line) => line.role === 'caller').map((line) => [line.turn, line.text]);
    assert.deepEqual(callers, recording.turns.filter((turn) => turn.caller?.text).map((turn) => [turn.index, turn.caller!.text]));
    const agentLines = detail.transcript.filter((line) => line.role === 'agent');
    assert.equal(agentLines[0]!.text, 'This is the calls agent.');
    assert.deepEqual(
      agentLines.filter((line) => line.interrupted).map((line) => [line.turn, line.text.slice(0, 20)]),
      [[1, 'Here is a rather lon']],
    );

    // The agent's trace context is on the call, on each of its webhooks (header and body), and in its log lines.
    assert.equal(detail.traceparent, TRACE);
    const posts = receiver.events.filter((e) => (e.event.data as { callSid?: string }).callSid === streamSid);
    assert.ok(posts.some((e) => e.event.type === 'call.turn') && posts.some((e) => e.event.type === 'call.status'), JSON.stringify(posts.map((e) => e.event.type)));
    for (const post of posts) assert.deepEqual([post.event.type, post.headers.traceparent, (post.event as { traceparent?: string }).traceparent], [post.event.type, TRACE, TRACE]);
    const logged = captured.lines.filter((l) => l.callSid === streamSid).map((l) => [l.msg, l.traceparent]);
    assert.deepEqual(logged, [['call placed', TRACE], ['call ended', TRACE]]);
    const relay = (await get(`/api/v1/calls/${relaySid}`, agent.securityToken)).body;
    assert.equal(relay.traceparent, null, 'a call placed without one has none');

    assert.equal(await observed('switchboard_voice_turn_latency_seconds_count{mode="stream"}'), 2);
    for (const part of ['transcription', 'agent', 'tts', 'switchboard']) assert.equal(await observed(`switchboard_voice_turn_part_seconds_count{mode="stream",part="${part}"}`), 2, part);
  });

  it('lists calls newest first with filters and a cursor; another agent sees none of them', async () => {
    assert.ok(relaySid && streamSid, 'the calls of the tests before');
    const list = async (query: string, token = agent.securityToken) => {
      const { status, body } = await get(`/api/v1/calls${query}`, token);
      assert.equal(status, 200, JSON.stringify(body));
      return body as { calls: { callId: string; direction: string; status: string; summary: Summary | null }[]; nextCursor: string | null };
    };
    const all = await list('');
    assert.deepEqual(all.calls.map((c) => c.callId), [streamSid, relaySid]);
    assert.equal(all.nextCursor, null);
    assert.ok(all.calls.every((c) => c.summary && c.summary.turns === 2));
    assert.deepEqual((await list('?direction=outbound')).calls.map((c) => c.callId), [streamSid]);
    assert.deepEqual((await list('?direction=inbound&status=completed')).calls.map((c) => c.callId), [relaySid]);
    assert.deepEqual((await list('?status=busy')).calls, []);
    assert.deepEqual((await list(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).calls, []);
    assert.equal((await list(`?until=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).calls.length, 2);

    const page1 = await list('?limit=1');
    assert.deepEqual(page1.calls.map((c) => c.callId), [streamSid]);
    assert.ok(page1.nextCursor);
    const page2 = await list(`?limit=1&cursor=${encodeURIComponent(page1.nextCursor!)}`);
    assert.deepEqual(page2.calls.map((c) => c.callId), [relaySid]);
    assert.equal(page2.nextCursor, null);

    const team = await list(`?agentId=${agent.agentId}`, t.teamToken);
    assert.deepEqual(team.calls.map((c) => c.callId), [streamSid, relaySid]);
    assert.deepEqual((await list('', other.securityToken)).calls, [], "another agent's client token lists none of them");

    const foreign = await get(`/api/v1/calls/${relaySid}`, other.securityToken);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'NOT_FOUND');
    const asTeam = await get(`/api/v1/calls/${relaySid}`, t.teamToken);
    assert.equal(asTeam.status, 200);
    const forbidden = await get(`/api/v1/calls?agentId=${agent.agentId}`, other.securityToken);
    assert.deepEqual([forbidden.status, forbidden.body.code], [403, 'FORBIDDEN']);
  });

  it('bad input gets contract errors', async () => {
    const cases: [string, number, string][] = [
      ['/api/v1/calls?limit=0', 400, 'VALIDATION_FAILED'],
      ['/api/v1/calls?limit=201', 400, 'VALIDATION_FAILED'],
      ['/api/v1/calls?status=sleeping', 400, 'VALIDATION_FAILED'],
      ['/api/v1/calls?direction=sideways', 400, 'VALIDATION_FAILED'],
      ['/api/v1/calls?since=yesterday', 400, 'VALIDATION_FAILED'],
      ['/api/v1/calls?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', 400, 'VALIDATION_FAILED'],
      ['/api/v1/calls?cursor=not-a-cursor', 400, 'VALIDATION_FAILED'],
      ['/api/v1/calls?colour=blue', 400, 'BAD_REQUEST'],
      ['/api/v1/calls/CA!bad', 400, 'VALIDATION_FAILED'],
      [`/api/v1/calls/CA${'0'.repeat(32)}`, 404, 'NOT_FOUND'],
    ];
    for (const [path, status, code] of cases) {
      const res = await get(path, agent.securityToken);
      assert.deepEqual([res.status, res.body.code], [status, code], `${path}: ${JSON.stringify(res.body)}`);
      assert.equal(typeof res.body.error, 'string');
    }
    const anonymous = await t.call('GET', '/api/v1/calls');
    assert.equal(anonymous.status, 401);
  });

  it('MCP comms_get_call answers what the REST route does', async () => {
    const mcp = await connectMcp(t.url, 'streamable', agent.securityToken, agent.agentId);
    try {
      const rest = (await get(`/api/v1/calls/${relaySid}`, agent.securityToken)).body;
      const tool = await mcp.call('comms_get_call', { callId: relaySid });
      assert.equal(tool.isError, false);
      assert.deepEqual(tool.body, rest);
      const missing = await mcp.call('comms_get_call', {});
      assert.deepEqual([missing.isError, missing.body.code], [true, 'VALIDATION_FAILED']);
      // A call placed over MCP takes the trace context of the request's `_meta`.
      const traced = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      t.sim.phone.onOutbound('+14155550849', { steps: ['Bye now.'], replyTimeoutMs: 4000 });
      const placed = await mcp.client.callTool({ name: 'comms_make_call', arguments: { to: '+14155550849', greeting: 'Hi.' }, _meta: { traceparent: traced } });
      const { callSid } = placed.structuredContent as { callSid: string };
      assert.equal((await get(`/api/v1/calls/${callSid}`, agent.securityToken)).body.traceparent, traced);
    } finally {
      await mcp.close();
    }
    const stranger = await connectMcp(t.url, 'streamable', other.securityToken, other.agentId);
    try {
      const hidden = await stranger.call('comms_get_call', { callId: relaySid });
      assert.deepEqual([hidden.isError, hidden.body.code], [true, 'NOT_FOUND']);
    } finally {
      await stranger.close();
    }
  });
});
