import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ArcElement, BarController, BarElement, CategoryScale, Chart, DoughnutController, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js';
import { api } from './api.js';
import { useChannels } from './channels.js';
import { Freshness, usePolling } from './polling.js';
import { agentPath, count } from './words.js';

Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, DoughnutController, ArcElement, Legend, Tooltip);

const usd = (n) => `$${Number(n).toFixed(n < 1 ? 4 : 2)}`;

/**
 * A dead letter's text, short. A voicemail's body is its transcript ("Agent: …" and "Caller: …" lines):
 * the preview is what the caller said, not the greeting they heard.
 */
const preview = (letter) => {
  const callerSaid = letter.reason === 'voicemail' ? letter.body.split('\n').filter((l) => l.startsWith('Caller: ')).map((l) => l.slice('Caller: '.length)).join(' ') : '';
  const text = callerSaid || letter.body;
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
};

const actions = (t) => `${count(t.actions, 'action')} · ${usd(t.cost)}`;
const REFUSED = { RECIPIENT_OPTED_OUT: 'opted out', OUTSIDE_CALLING_HOURS: 'outside hours', CONSENT_REQUIRED: 'no consent' };
/** The day's refusals by the contact policy: "3 (2 no consent, 1 opted out)". */
const refusedToday = (refusals) => {
  const byCode = Object.entries(refusals?.today ?? {});
  const total = byCode.reduce((sum, [, n]) => sum + n, 0);
  return total === 0 ? '0' : `${total} (${byCode.map(([code, n]) => `${n} ${REFUSED[code] ?? code}`).join(', ')})`;
};

function ChartCanvas({ config, label }) {
  const ref = useRef(null);
  const chart = useRef(null);
  useEffect(() => {
    if (!chart.current) chart.current = new Chart(ref.current, config);
    else {
      chart.current.data = config.data;
      chart.current.update('none');
    }
  });
  useEffect(() => () => chart.current?.destroy(), []);
  return html`<div class="chart"><canvas ref=${ref} role="img" aria-label=${label}></canvas></div>`;
}

function Stat({ label, value, id }) {
  return html`<div class="stat" data-stat=${id}><span class="label">${label}</span><span class="value">${value}</span></div>`;
}

export function Dashboard() {
  const dash = usePolling(() => api('GET', '/admin/api/dashboard'));
  const agents = usePolling(() => api('GET', '/admin/api/agents'));
  const letters = usePolling(() => api('GET', '/admin/api/dead-letters?status=pending&limit=20'));
  const d = dash.data;
  if (dash.error && !d) return html`<p role="alert" class="error">${dash.error}</p>`;
  if (!d) return html`<p class="loading">Loading dashboard…</p>`;
  const days = d.series.days;
  const channels = Object.entries(d.series.channelsToday);
  return html`<section aria-labelledby="dash-title">
    <h1 id="dash-title">Dashboard</h1>
    <${Freshness} polls=${[dash, agents, letters]} />
    <div class="stats">
      <${Stat} id="agents" label="Agents (active / total)" value=${`${d.agents.active} / ${d.agents.total}`} />
      <${Stat} id="today" label="Today" value=${actions(d.usage.today)} />
      <${Stat} id="month" label="This month" value=${actions(d.usage.month)} />
      <${Stat} id="messages" label="Messages today (in / out)" value=${`${d.series.messagesToday.inbound} / ${d.series.messagesToday.outbound}`} />
      <${Stat} id="dead-letters" label="Pending dead letters" value=${d.deadLetters.pending} />
      <${Stat} id="calls" label="Active calls" value=${d.calls.active} />
      <${Stat} id="refusals" label="Contacts refused today" value=${refusedToday(d.refusals)} />
    </div>
    <section aria-labelledby="alerts-title" class="card">
      <h2 id="alerts-title">Alerts</h2>
      ${d.alerts.length === 0
        ? html`<p>No alerts.</p>`
        : html`<ul class="alerts">${d.alerts.map((a) => html`<li class=${a.level}><strong>${a.level}</strong> ${a.message}</li>`)}</ul>`}
    </section>
    <div class="grid2">
      <section class="card" aria-labelledby="cost-title">
        <h2 id="cost-title">Usage and cost, last 14 days</h2>
        <${ChartCanvas}
          label="Cost in USD and actions per day over the last 14 days"
          config=${{
            type: 'bar',
            data: {
              labels: days.map((x) => x.date.slice(5)),
              datasets: [
                { type: 'bar', label: 'Cost (USD)', data: days.map((x) => x.cost), yAxisID: 'cost', backgroundColor: '#3b6fd8' },
                { type: 'line', label: 'Actions', data: days.map((x) => x.actions), yAxisID: 'actions', borderColor: '#d8703b', backgroundColor: '#d8703b' },
              ],
            },
            options: { animation: false, maintainAspectRatio: false, scales: { cost: { position: 'left', beginAtZero: true }, actions: { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false } } } },
          }}
        />
      </section>
      <section class="card" aria-labelledby="channels-title">
        <h2 id="channels-title">Today by channel</h2>
        ${channels.length === 0
          ? html`<p>No usage yet today.</p>`
          : html`<${ChartCanvas}
              label=${`Actions today by channel: ${channels.map(([c, t]) => `${c} ${t.actions}`).join(', ')}`}
              config=${{
                type: 'doughnut',
                data: { labels: channels.map(([c]) => c), datasets: [{ data: channels.map(([, t]) => t.actions), backgroundColor: ['#3b6fd8', '#d8703b', '#2e9e6a', '#9e2e8a', '#c9a227'] }] },
                options: { animation: false, maintainAspectRatio: false },
              }}
            />`}
      </section>
    </div>
    <section class="card" aria-labelledby="agents-title">
      <h2 id="agents-title">Agents</h2>
      <table class="stack agents" role="table">
        <thead role="rowgroup"><tr role="row"><th role="columnheader" scope="col">Agent</th><th role="columnheader" scope="col">Status</th><th role="columnheader" scope="col">Channels</th><th role="columnheader" scope="col">Blocked</th></tr></thead>
        <tbody role="rowgroup">
          ${(agents.data?.agents ?? []).map(
            (a) => html`<tr role="row">
              <td role="cell" class="wide"><a href=${`/admin/agents/${encodeURIComponent(a.agentId)}`}>${a.displayName || a.agentId}</a> <small>${a.agentId}</small></td>
              <td role="cell" data-label="Status">${a.status}</td>
              <td role="cell" class="wide" data-label="Channels">${Object.entries(a.channels).map(([c, addr]) => html`<span class="chip">${c}: ${addr}</span> `)}</td>
              <td role="cell" data-label="Blocked">${a.blockedChannels.join(', ') || '—'}</td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${agents.data && agents.data.agents.length === 0 && html`<p>No agents yet. Provision one with POST /api/v1/provision (team token).</p>`}
    </section>
    <section class="card" aria-labelledby="letters-title">
      <h2 id="letters-title">Pending dead letters</h2>
      ${(letters.data?.deadLetters ?? []).length === 0
        ? html`<p>None.</p>`
        : html`<ul class="letters">${letters.data.deadLetters.map(
            (l) => html`<li><a href=${`/admin/agents/${encodeURIComponent(l.agentId)}`}>${l.agentId}</a> · ${l.channel} · ${l.reason} · from ${l.from}: “${preview(l)}”</li>`,
          )}</ul>`}
    </section>
  </section>`;
}

export function AgentDetail({ agentId }) {
  const detail = usePolling(() => api('GET', `/admin/api/agents/${encodeURIComponent(agentId)}`), [agentId]);
  const channels = useChannels().map((c) => c.channel);
  const [message, setMessage] = useState('');
  const d = detail.data;
  if (detail.error && !d) return html`<p role="alert" class="error">${detail.error}</p>`;
  if (!d) return html`<p class="loading">Loading ${agentId}…</p>`;
  const pending = d.deadLetters.filter((l) => !l.acknowledgedAt).length;
  const a = d.agent;
  const toggle = async (channel) => {
    const blocked = a.blockedChannels.includes(channel) ? a.blockedChannels.filter((c) => c !== channel) : [...a.blockedChannels, channel];
    try {
      await api('POST', `/admin/api/agents/${encodeURIComponent(agentId)}/blocked-channels`, { blockedChannels: blocked });
      setMessage(`${channel} is now ${blocked.includes(channel) ? 'blocked' : 'unblocked'}.`);
      detail.refresh();
    } catch (e) {
      setMessage(`Could not change ${channel}: ${e.message}`);
    }
  };
  const deprovision = async () => {
    if (!confirm(`Delete ${agentId} and return its channels to the pools?`)) return;
    try {
      await api('DELETE', `/admin/api/agents/${encodeURIComponent(agentId)}`);
      location.href = '/admin/dashboard';
    } catch (e) {
      setMessage(`Could not deprovision: ${e.message}`);
    }
  };
  return html`<section aria-labelledby="agent-title">
    <p><a href="/admin/dashboard">← Dashboard</a></p>
    <h1 id="agent-title">${a.displayName || a.agentId} <small>${a.agentId} · ${a.status}</small></h1>
    <${Freshness} polls=${[detail]} />
    <nav class="card subpages" aria-label=${`${a.agentId}: activity`}>
      <a href=${agentPath(agentId, 'conversations')}>Conversations</a>
      <a href=${agentPath(agentId, 'calls')}>Calls</a>
      <a href=${agentPath(agentId, 'callbacks')}>Callback delivery log</a>
    </nav>
    <p role="status" aria-live="polite">${message}</p>
    <div class="stats">
      <${Stat} id="today" label="Today" value=${actions(d.usage.today)} />
      <${Stat} id="month" label="This month" value=${actions(d.usage.month)} />
      <${Stat} id="dead-letters" label="Pending dead letters" value=${pending} />
    </div>
    <section class="card" aria-labelledby="channels-title">
      <h2 id="channels-title">Channels</h2>
      <table class="stack channels" role="table">
        <thead role="rowgroup"><tr role="row"><th role="columnheader" scope="col">Channel</th><th role="columnheader" scope="col">Address</th><th role="columnheader" scope="col">State</th><th role="columnheader" scope="col"><span class="sr-only">Action</span></th></tr></thead>
        <tbody role="rowgroup">
          ${channels.filter((c) => a.channels[c]).map((c) => {
            const blocked = a.blockedChannels.includes(c);
            return html`<tr role="row">
              <th role="rowheader" scope="row">${c}</th><td role="cell" class="wide address">${a.channels[c]}</td><td role="cell">${blocked ? 'blocked' : 'open'}</td>
              <td role="cell"><button type="button" onClick=${() => toggle(c)} aria-label=${`${blocked ? 'Unblock' : 'Block'} ${c}`}>${blocked ? 'Unblock' : 'Block'}</button></td>
            </tr>`;
          })}
        </tbody>
      </table>
      <p>Callback URL: ${a.callbackUrl ?? 'none'}</p>
    </section>
    <section class="card" aria-labelledby="limits-title">
      <h2 id="limits-title">Limits</h2>
      <dl class="limits">${Object.entries(d.limits).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
    </section>
    <section class="card" aria-labelledby="messages-title">
      <h2 id="messages-title">Recent messages</h2>
      <table class="stack messages" role="table">
        <thead role="rowgroup"><tr role="row">${['When', 'Channel', 'Direction', 'From → To', 'Status', 'Body'].map((h) => html`<th role="columnheader" scope="col">${h}</th>`)}</tr></thead>
        <tbody role="rowgroup">${d.messages.map(
          (m) => html`<tr role="row">
            <td role="cell">${new Date(m.createdAt).toLocaleString()}</td><td role="cell" data-label="Channel">${m.channel}</td><td role="cell" data-label="Direction">${m.direction}</td>
            <td role="cell" class="wide address">${m.from} → ${m.to}</td><td role="cell" data-label="Status">${m.status}</td><td role="cell" class="wide" data-label="Body">${m.body.slice(0, 120)}</td>
          </tr>`,
        )}</tbody>
      </table>
    </section>
    <section class="card" aria-labelledby="calls-title">
      <h2 id="calls-title">Recent calls</h2>
      ${d.calls.length === 0
        ? html`<p>None.</p>`
        : html`<ul>${d.calls.map((c) => html`<li><a href=${`/admin/calls/${encodeURIComponent(c.callSid)}`}>${c.direction} ${c.from} → ${c.to}</a> · ${c.status} · ${c.durationSeconds} s</li>`)}</ul>`}
    </section>
    <section class="card" aria-labelledby="letters-title">
      <h2 id="letters-title">Dead letters</h2>
      ${d.deadLetters.length === 0 ? html`<p>None.</p>` : html`<ul>${d.deadLetters.map((l) => html`<li>${l.channel} · ${l.reason} · ${l.acknowledgedAt ? 'collected' : 'pending'} · “${preview(l)}”</li>`)}</ul>`}
    </section>
    <button type="button" class="danger" onClick=${deprovision}>Deprovision ${agentId}</button>
  </section>`;
}
