import { html } from 'htm/preact';
import { api } from './api.js';
import { Freshness, LoadFailure, OlderButton, useOlder, usePolling } from './polling.js';
import { agentPath, count, ms, when } from './words.js';

const callPath = (callId) => `/admin/calls/${encodeURIComponent(callId)}`;
const latency = (s) => (s?.turnLatencyMs ? `${ms(s.turnLatencyMs.p50)} / ${ms(s.turnLatencyMs.p95)}` : '—');

/** Calls newest first: of one agent (agentId), or of every agent. */
export function CallList({ agentId }) {
  const query = agentId ? `agentId=${encodeURIComponent(agentId)}&` : '';
  const list = usePolling(() => api('GET', `/admin/api/calls?${query}limit=50`), [agentId]);
  const older = useOlder(async (cursor) => {
    const page = await api('GET', `/admin/api/calls?${query}limit=50&cursor=${encodeURIComponent(cursor)}`);
    return { rows: page.calls, nextCursor: page.nextCursor };
  });
  const back = agentId ? { href: agentPath(agentId), label: `go back to ${agentId}` } : { href: '/admin/dashboard', label: 'go back to the dashboard' };
  if (list.error && !list.data) return html`<${LoadFailure} error=${list.error} what="the calls" back=${back} />`;
  if (!list.data) return html`<p class="loading">Loading calls…</p>`;
  const calls = older.rows(list.data.calls, (c) => c.callId);
  return html`<section aria-labelledby="calls-title">
    ${agentId && html`<p><a href=${back.href}>← ${agentId}</a></p>`}
    <h1 id="calls-title">Calls ${agentId ? html`<small>${agentId}</small>` : html`<small>every agent</small>`}</h1>
    <p class="hint">Newest first. Turn latency is from the caller's end of speech to the reply's first frame (p50 / p95 over the call's turns).</p>
    <${Freshness} polls=${[list]} />
    <section class="card" aria-labelledby="call-list-title">
      <h2 id="call-list-title" class="sr-only">Call list</h2>
      ${calls.length === 0
        ? html`<p class="empty">No calls yet${agentId ? ` for ${agentId}` : ''}. A call appears here when someone calls an agent's number or an agent makes a call (POST /api/v1/make-call).</p>`
        : html`<table class="stack calls" role="table">
            <thead role="rowgroup"><tr role="row">${['When', ...(agentId ? [] : ['Agent']), 'Call', 'Mode', 'Status', 'Duration', 'Turns', 'Turn latency p50 / p95'].map((h) => html`<th role="columnheader" scope="col">${h}</th>`)}</tr></thead>
            <tbody role="rowgroup">
              ${calls.map(
                (c) => html`<tr role="row" key=${c.callId}>
                  <td role="cell"><a href=${callPath(c.callId)}>${when(c.createdAt)}</a></td>
                  ${!agentId && html`<td role="cell" data-label="Agent"><a href=${agentPath(c.agentId)}>${c.agentId}</a></td>`}
                  <td role="cell" class="wide">${c.direction} · ${c.from} → ${c.to}</td>
                  <td role="cell" data-label="Mode">${c.mode}</td>
                  <td role="cell" data-label="Status">${c.status}</td>
                  <td role="cell" data-label="Duration">${c.durationSeconds} s</td>
                  <td role="cell" data-label="Turns">${c.summary ? c.summary.turns : '—'}</td>
                  <td role="cell" data-label="Turn latency p50 / p95">${latency(c.summary)}</td>
                </tr>`,
              )}
            </tbody>
          </table>`}
      <${OlderButton} older=${older} firstCursor=${list.data.nextCursor} label="Older calls" />
    </section>
  </section>`;
}

const LANES = [
  ['transcription', 'Transcription'],
  ['agent', 'Agent'],
  ['tts', 'Text-to-speech'],
  ['switchboard', 'Switchboard added'],
];

/**
 * A turn's parts as intervals in ms after its start: speech-to-text, the agent, text-to-speech, and
 * what Switchboard added: the gaps between them up to the reply's first frame.
 */
function lanesOf(turn) {
  const s = turn.stamps;
  const span = (from, to) => (from !== null && to !== null ? [[from, to]] : []);
  const parts = {
    transcription: span(s.transcriptReady === null ? null : 0, s.transcriptReady),
    agent: span(s.agentAsked, s.replyEnded),
    tts: span(s.ttsAsked, s.ttsFirstAudio),
  };
  const gaps = [];
  if (turn.latencyMs !== null) {
    const covered = [...parts.transcription, ...parts.agent, ...parts.tts].sort((a, b) => a[0] - b[0]);
    let at = 0;
    for (const [from, to] of covered) {
      if (from > at) gaps.push([at, Math.min(from, turn.latencyMs)]);
      at = Math.max(at, to);
    }
    if (turn.latencyMs > at) gaps.push([at, turn.latencyMs]);
  }
  const totals = { transcription: turn.components.transcriptionMs, agent: turn.components.agentMs, tts: turn.components.ttsMs, switchboard: turn.components.switchboardMs };
  return LANES.map(([key, label]) => ({ key, label, spans: key === 'switchboard' ? gaps.filter(([a, b]) => b > a) : parts[key], total: totals[key] })).filter(
    (lane) => lane.total !== null || lane.spans.length > 0,
  );
}

/**
 * The furthest stamp of any turn, so every turn is drawn on one scale. Barge-ins are left out: they
 * come while the reply plays, often seconds later, and would squeeze the parts into slivers.
 */
function scaleOf(turns) {
  let end = 1;
  for (const t of turns) for (const v of [t.latencyMs, ...Object.values(t.stamps)]) if (v !== null) end = Math.max(end, v);
  return end;
}

const pct = (v, scale) => `${Math.max(0, Math.min(100, (v / scale) * 100)).toFixed(2)}%`;
/** Where a bar or marker starts: never so near the right end that its least width (2px; a marker's head, 0.4rem) sticks out of the track. */
const at = (v, scale, least = '2px') => `min(${pct(v, scale)}, calc(100% - ${least}))`;

function TurnRows({ turn, scale }) {
  const title = turn.turn === 0 ? 'Greeting' : `Turn ${turn.turn}`;
  const start = turn.turn === 0 ? 'from the media stream’s start' : 'from the caller’s end of speech';
  const lanes = lanesOf(turn);
  return html`<tbody role="rowgroup" data-turn=${turn.turn}>
    <tr role="row" class="turn-head">
      <th role="rowheader" scope="rowgroup" colspan="3">
        ${title}: ${turn.latencyMs === null ? html`<span class="error">no reply frame was sent</span>` : `first reply frame after ${ms(turn.latencyMs)}`} <small>${start}, ${new Date(turn.at).toLocaleTimeString()}${turn.endpointingMs !== null ? `; endpointing waited ${ms(turn.endpointingMs)} of silence` : ''}</small>
      </th>
    </tr>
    ${lanes.map(
      (lane) => html`<tr role="row" class="lane">
        <th role="rowheader" scope="row">${lane.label}</th>
        <td role="cell" class="track-cell"><div class="track" aria-hidden="true">
          ${lane.spans.map(([from, to]) => html`<span class=${`bar ${lane.key}`} style=${{ left: at(from, scale), width: pct(Math.max(to - from, scale / 400), scale) }}></span>`)}
        </div></td>
        <td role="cell" class="value">${ms(lane.total)}</td>
      </tr>`,
    )}
    ${turn.bargeIns.map(
      (b, i) => html`<tr role="row" class="lane barge-in" data-barge-in=${i}>
        <th role="rowheader" scope="row">Barge-in</th>
        <td role="cell" class="track-cell"><div class="track" aria-hidden="true">
          ${b.atMs > scale
            ? html`<span class="marker beyond"></span>`
            : html`<span class="marker" style=${{ left: at(b.atMs, scale, '0.4rem') }}></span>
                ${b.stopMs !== null && html`<span class="bar stop" style=${{ left: at(b.atMs, scale), width: pct(Math.min(Math.max(b.stopMs, scale / 400), scale - b.atMs), scale) }}></span>`}`}
        </div></td>
        <td role="cell" class="value">at ${ms(b.atMs)}; ${b.stopMs === null ? 'the provider stopped the reply' : `reply stopped in ${ms(b.stopMs)}`}</td>
      </tr>`,
    )}
  </tbody>`;
}

function Waterfall({ ledger }) {
  if (!ledger) return html`<p class="empty">No latency ledger for this call yet: it is written when the call's media connection closes. A call that never connected, or whose process stopped mid-call, has none.</p>`;
  const turns = [...(ledger.greeting ? [ledger.greeting] : []), ...ledger.turns];
  if (turns.length === 0) return html`<p class="empty">The call had no turns: nobody spoke and no greeting was played.</p>`;
  const scale = scaleOf(turns);
  return html`<p class="hint">
      Each turn on one scale, 0 to ${ms(scale)}. Bars run from when a part started to when it ended;
      “Switchboard added” is the time between the parts, up to the reply's first frame. A barge-in later than the scale
      is marked at its right edge, with its time beside it.
    </p>
    <ul class="legend" aria-label="Legend">
      ${LANES.map(([key, label]) => html`<li><span class=${`swatch ${key}`} aria-hidden="true"></span>${label}</li>`)}
      <li><span class="swatch barge" aria-hidden="true"></span>Barge-in (caller spoke over the reply)</li>
    </ul>
    <div class="table-wrap"><table class="waterfall" role="table">
      <caption class="sr-only">Latency of each turn by part</caption>
      <colgroup><col class="lane-name" /><col /><col class="lane-value" /></colgroup>
      ${turns.map((turn) => html`<${TurnRows} key=${turn.turn} turn=${turn} scale=${scale} />`)}
    </table></div>`;
}

/** A call's transcript lines: who spoke (the greeting named), what was said, and replies the caller interrupted, marked. */
export function TranscriptLines({ lines }) {
  return html`<ol class="lines">
    ${lines.map(
      (l) => html`<li class=${`line ${l.role}${l.interrupted ? ' interrupted' : ''}`}>
        <span class="who">${l.turn === 0 ? 'Greeting' : l.role === 'agent' ? 'Agent' : 'Caller'}</span> <span class="said">${l.text}</span>
        ${l.interrupted && html` <span class="badge">interrupted</span>`} <small>${l.turn !== undefined ? `turn ${l.turn} · ` : ''}${new Date(l.at).toLocaleTimeString()}</small>
      </li>`,
    )}
  </ol>`;
}

/** The call's recording: a player on the operator's own route (the session cookie), or why there is none. */
function Recording({ call }) {
  if (!call.recording) {
    return html`<p class="empty">Not recorded. Recording is off unless the call asked for it (make-call <code>record</code>) or its agent records its calls (<code>recordCalls</code>); a recording appears here once the call has ended and it is stored.</p>`;
  }
  const src = `/admin/api/calls/${encodeURIComponent(call.callId)}/recording`;
  const r = call.recording;
  // preload="metadata": the player reads the WAV's header at once and shows the recording's length, not 0:00.
  return html`<audio class="recording" controls preload="metadata" src=${src} aria-label=${`Recording of call ${call.callSid}`}></audio>
    <p class="hint">
      ${r.durationSeconds.toFixed(1)} s, stored ${when(r.recordedAt)}; both legs in one WAV file${call.mode === 'stream' ? ' (the caller on the left channel, the agent on the right)' : ', recorded by the provider'}.${' '}
      <a href=${src} download=${`${call.callSid}.wav`}>Download</a>
    </p>`;
}

function Stat({ label, value, id }) {
  return html`<div class="stat" data-stat=${id}><span class="label">${label}</span><span class="value">${value}</span></div>`;
}

/** One call: what it was, its summary, the waterfall of each turn's latency ledger, its recording and the transcript. */
export function CallPage({ callId }) {
  const call = usePolling(() => api('GET', `/admin/api/calls/${encodeURIComponent(callId)}`), [callId]);
  const back = { href: '/admin/calls', label: 'go back to the calls' };
  if (call.error && !call.data) return html`<${LoadFailure} error=${call.error} what=${`call ${callId}`} back=${back} />`;
  if (!call.data) return html`<p class="loading">Loading call ${callId}…</p>`;
  const c = call.data;
  const s = c.summary;
  return html`<section aria-labelledby="call-title">
    <p><a href=${agentPath(c.agentId, 'calls')}>← Calls of ${c.agentId}</a></p>
    <h1 id="call-title">${c.direction === 'inbound' ? 'Call from' : 'Call to'} ${c.direction === 'inbound' ? c.from : c.to} <small>${c.callSid}</small></h1>
    <p>
      ${c.direction} · ${c.from} → ${c.to} · <a href=${agentPath(c.agentId)}>${c.agentId}</a> · ${c.mode} mode · started ${when(c.createdAt)}
      ${c.connectedAt ? ` · answered ${new Date(c.connectedAt).toLocaleTimeString()}` : ''}${c.endedAt ? ` · ended ${new Date(c.endedAt).toLocaleTimeString()}` : ''}
    </p>
    <${Freshness} polls=${[call]} />
    <div class="stats">
      <${Stat} id="status" label="Status" value=${c.status} />
      <${Stat} id="duration" label="Duration" value=${`${c.durationSeconds} s`} />
      <${Stat} id="turns" label="Turns" value=${s ? s.turns : '—'} />
      <${Stat} id="latency" label="Turn latency p50 / p95" value=${latency(s)} />
      <${Stat} id="switchboard" label="Switchboard added p95" value=${s?.switchboardAddedMs ? ms(s.switchboardAddedMs.p95) : '—'} />
      <${Stat} id="cost" label="Cost" value=${c.cost === null ? '—' : `$${c.cost.toFixed(4)}`} />
    </div>
    ${!s && html`<p class="hint">The summary comes when the call's media connection closes.</p>`}
    <section class="card" aria-labelledby="waterfall-title">
      <h2 id="waterfall-title">Latency of each turn</h2>
      <${Waterfall} ledger=${c.ledger} />
    </section>
    <section class="card" aria-labelledby="recording-title">
      <h2 id="recording-title">Recording</h2>
      <${Recording} call=${c} />
    </section>
    <section class="card" aria-labelledby="transcript-title">
      <h2 id="transcript-title">Transcript ${c.transcript.length > 0 && html`<small>${count(c.transcript.length, 'line')}</small>`}</h2>
      ${c.transcript.length === 0
        ? html`<p class="empty">No transcript: nobody spoke, or the call's media connection has not closed yet.</p>`
        : html`<${TranscriptLines} lines=${c.transcript} />`}
    </section>
  </section>`;
}
