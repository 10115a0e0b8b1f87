import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { Freshness, LoadFailure, OlderButton, useOlder, usePolling } from './polling.js';
import { agentPath, count, when } from './words.js';

/** What an attempt got back: the HTTP status, or why no answer came. */
function Result({ a }) {
  const answer = a.statusCode !== null ? `HTTP ${a.statusCode}` : `No answer: ${a.error ?? 'unknown error'}`;
  const tone = a.outcome === 'delivered' ? 'ok' : a.outcome === 'retrying' ? 'pending' : 'error';
  return html`${answer} <span class=${`state ${tone}`}>${a.outcome}</span>`;
}

function Endpoint({ endpoint, callbackUrl }) {
  if (!endpoint) return html`<p>Callback URL: ${callbackUrl ?? 'none set'}. Nothing has been posted to it yet.</p>`;
  return html`<p>
    Callback URL: <code>${endpoint.url}</code>.
    ${endpoint.disabledAt
      ? html` <strong class="error">Disabled since ${when(endpoint.disabledAt)}</strong> after failing since ${when(endpoint.failingSince)}: no posts go to it. Replaying an event enables it again; so does the agent setting its callback URL.`
      : endpoint.failingSince
        ? html` <strong class="error">Failing since ${when(endpoint.failingSince)}</strong>; attempts continue on the retry schedule.`
        : html` <span class="ok">Working</span>: the last attempt was answered.`}
  </p>`;
}

/** A `datetime-local` input's value for `date`, in the browser's time zone. */
function localInput(date) {
  const shifted = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return shifted.toISOString().slice(0, 16);
}

/** Replays every event first posted in a time range (the browser's local time), after a confirmation. */
function RangeReplay({ agentId, url, onDone }) {
  const [since, setSince] = useState(() => localInput(new Date(Date.now() - 3_600_000)));
  const [until, setUntil] = useState(() => localInput(new Date(Date.now() + 60_000)));
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    const from = new Date(since);
    const to = new Date(until);
    if (!(from < to)) return onDone({ text: 'Pick a "From" time before the "Until" time, then replay again.', error: true });
    if (!confirm(`Post every event first posted between ${when(from.toISOString())} and ${when(to.toISOString())} to ${url ?? 'the callback URL'} again? Each starts a new round of the retry schedule, with its original payload and webhook-id.`)) return;
    setBusy(true);
    try {
      const done = await api('POST', `/admin/api/agents/${encodeURIComponent(agentId)}/callback-replay`, { since: from.toISOString(), until: to.toISOString() });
      onDone({
        text: done.replayed === 0 ? 'No event was first posted in that range: nothing replayed. Widen the range and try again.' : `Replayed the range: ${count(done.replayed, 'event')} queued for delivery. Their new attempts appear at the top of the log.`,
        error: false,
      });
    } catch (err) {
      onDone({ text: `Could not replay the range: ${err.message} Check the range and try again.`, error: true });
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="card range-replay" onSubmit=${submit} aria-labelledby="range-title">
    <h2 id="range-title">Replay a time range</h2>
    <p class="hint">Every event first posted in the range, in your browser's time zone: for an endpoint that was down, once it is fixed.</p>
    <label>From <input type="datetime-local" value=${since} onInput=${(e) => setSince(e.currentTarget.value)} required /></label>
    <label>Until <input type="datetime-local" value=${until} onInput=${(e) => setUntil(e.currentTarget.value)} required /></label>
    <button type="submit" disabled=${busy}>${busy ? 'Replaying…' : 'Replay range'}</button>
  </form>`;
}

/** An agent's callback delivery log, newest first, one row per attempt, with a replay of one event or of a time range. */
export function CallbackLog({ agentId }) {
  const path = `/admin/api/agents/${encodeURIComponent(agentId)}/callback-log`;
  const log = usePolling(() => api('GET', `${path}?limit=100`), [agentId]);
  const agent = usePolling(() => api('GET', `/admin/api/agents/${encodeURIComponent(agentId)}`), [agentId]);
  const older = useOlder(async (cursor) => {
    const page = await api('GET', `${path}?limit=100&cursor=${encodeURIComponent(cursor)}`);
    return { rows: page.attempts, nextCursor: page.nextCursor };
  });
  const [result, setResult] = useState({ text: '', error: false });
  const [busy, setBusy] = useState('');
  const back = { href: agentPath(agentId), label: `go back to ${agentId}` };
  if (log.error && !log.data) return html`<${LoadFailure} error=${log.error} what=${`the callback delivery log of ${agentId}`} back=${back} />`;
  if (!log.data) return html`<p class="loading">Loading the callback delivery log…</p>`;
  const attempts = older.rows(log.data.attempts, (a) => a.id);
  // The replay button sits on each event's newest attempt only.
  const newest = new Set();
  const replay = async (a) => {
    const what = `${a.eventType ?? 'event'} ${a.eventId}`;
    if (!confirm(`Post ${what} to ${a.url} again? It starts a new round of the retry schedule, with its original payload and webhook-id.`)) return;
    setBusy(a.eventId);
    try {
      const done = await api('POST', `/admin/api/agents/${encodeURIComponent(agentId)}/callback-replay`, { eventId: a.eventId });
      setResult({ text: `Replayed ${what}: ${count(done.replayed, 'event')} queued for delivery. Its new attempts appear at the top of the log.`, error: false });
      log.refresh();
    } catch (e) {
      setResult({ text: `Could not replay ${what}: ${e.message} Check the event still exists (the log keeps events for its retention) and try again.`, error: true });
    } finally {
      setBusy('');
    }
  };
  return html`<section aria-labelledby="callbacks-title">
    <p><a href=${back.href}>← ${agentId}</a></p>
    <h1 id="callbacks-title">Callback delivery log <small>${agentId}</small></h1>
    <p class="hint">Every post of an event to the agent's callback URL, newest first: the attempt in its round of the retry schedule, what came back, how long it took and the start of the answer.</p>
    <${Freshness} polls=${[log]} />
    <${Endpoint} endpoint=${log.data.endpoint} callbackUrl=${agent.data?.agent.callbackUrl} />
    <p role="status" aria-live="polite" class=${result.error ? 'error' : 'ok'}>${result.text}</p>
    <${RangeReplay}
      agentId=${agentId}
      url=${log.data.endpoint?.url ?? agent.data?.agent.callbackUrl}
      onDone=${(outcome) => {
        setResult(outcome);
        log.refresh();
      }}
    />
    <section class="card" aria-labelledby="attempts-title">
      <h2 id="attempts-title">Attempts</h2>
      ${attempts.length === 0
        ? html`<p class="empty">No attempts yet. Events are posted here once the agent has a callback URL (PUT /api/v1/callback-url) and something happens: a message comes in, a message's status changes, a call starts or ends.</p>`
        : html`<table class="stack attempts" role="table">
            <thead role="rowgroup"><tr role="row">${['Time', 'Event', 'Attempt', 'Result', 'Latency', 'Answer excerpt'].map((h) => html`<th role="columnheader" scope="col">${h}</th>`)}<th role="columnheader" scope="col"><span class="sr-only">Replay</span></th></tr></thead>
            <tbody role="rowgroup">
              ${attempts.map((a) => {
                const first = !newest.has(a.eventId) && newest.add(a.eventId);
                return html`<tr role="row" key=${a.id} data-event=${a.eventId}>
                  <td role="cell" class="wide">${when(a.createdAt)}</td>
                  <td role="cell" class="wide">${a.eventType ?? 'event'} <small>${a.eventId}</small></td>
                  <td role="cell" data-label="Attempt">${a.attempt}</td>
                  <td role="cell" data-label="Result"><${Result} a=${a} /></td>
                  <td role="cell" data-label="Latency">${a.latencyMs} ms</td>
                  <td role="cell" class="excerpt wide" data-label="Answer">${a.responseExcerpt ? html`<code>${a.responseExcerpt}</code>` : html`<span class="hint">(empty)</span>`}</td>
                  <td role="cell">${first && html`<button type="button" onClick=${() => replay(a)} disabled=${busy === a.eventId} aria-label=${`Replay ${a.eventType ?? 'event'} ${a.eventId}`}>${busy === a.eventId ? 'Replaying…' : 'Replay'}</button>`}</td>
                </tr>`;
              })}
            </tbody>
          </table>`}
      <${OlderButton} older=${older} firstCursor=${log.data.nextCursor} label="Older attempts" />
    </section>
  </section>`;
}
