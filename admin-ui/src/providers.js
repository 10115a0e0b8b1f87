import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { labelOf, specOf, useChannels } from './channels.js';
import { Freshness, LoadFailure, usePolling } from './polling.js';
import { RoutingEditor } from './routing.js';
import { percent, when } from './words.js';

const CIRCUIT = {
  closed: { label: 'closed', title: 'Sends go to it.', tone: 'ok' },
  'half-open': { label: 'half-open', title: 'One send is probing whether it answers again.', tone: 'pending' },
  open: { label: 'open', title: 'Sends skip it and go to the next provider until a probe succeeds.', tone: 'error' },
};

/** A provider's circuit as a badge that says it in words, not only in colour. */
function CircuitBadge({ state }) {
  const c = CIRCUIT[state] ?? { label: state, title: '', tone: 'pending' };
  return html`<span class=${`circuit ${c.tone}`} data-circuit=${state} title=${c.title}>${c.label}</span>`;
}

/** Runs the provider's own credential test with the driver serving now, and says how it went. */
function TestButton({ provider }) {
  const [result, setResult] = useState(undefined);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setResult(undefined);
    try {
      setResult(await api('POST', `/admin/api/providers/${encodeURIComponent(provider)}/test`));
    } catch (err) {
      setResult({ ok: false, message: err.message });
    } finally {
      setBusy(false);
    }
  };
  return html`<button type="button" onClick=${run} disabled=${busy} aria-label=${`Test ${provider} credentials`}>${busy ? 'Testing…' : 'Test credentials'}</button>
    ${result && html`<p role=${result.ok ? 'status' : 'alert'} class=${`test-result ${result.ok ? 'ok' : 'error'}`}>${result.message}</p>`}`;
}

const attempts = (a) => `${a.accepted} accepted · ${a.refused} refused · ${a.ambiguous} ambiguous`;

function ChannelProviders({ channel, label }) {
  const id = `providers-${channel.channel}`;
  return html`<section class="card" aria-labelledby=${id}>
    <h2 id=${id}>${label}</h2>
    <div class="table-wrap"><table class="stack providers" aria-label=${`${channel.channel} providers in routing order`}>
      <thead><tr><th scope="col">Order</th><th scope="col">Provider</th><th scope="col">Circuit</th><th scope="col">Last success</th><th scope="col">Last failure</th><th scope="col">Recent error rate</th><th scope="col">Attempts</th><th scope="col"><span class="sr-only">Test</span></th></tr></thead>
      <tbody>
        ${channel.providers.map(
          (p, i) => html`<tr key=${p.provider} data-provider=${p.provider}>
            <td data-label="Order">${i + 1}</td>
            <th scope="row">${p.provider}</th>
            <td data-label="Circuit"><${CircuitBadge} state=${p.circuit} /></td>
            <td data-label="Last success">${when(p.lastSuccessAt)}</td>
            <td data-label="Last failure">${when(p.lastFailureAt)}</td>
            <td data-label="Recent error rate">${p.recentErrorRate === null ? '—' : percent(p.recentErrorRate)}</td>
            <td class="wide" data-label="Attempts">${attempts(p.attempts)}</td>
            <td class="wide"><${TestButton} provider=${p.provider} /></td>
          </tr>`,
        )}
      </tbody>
    </table></div>
    ${channel.routes.length > 0
      ? html`<h3>Routes by destination prefix</h3>
          <table class="stack routes" aria-label=${`${channel.channel} routes by destination prefix`}>
            <thead><tr><th scope="col">Prefix</th><th scope="col">Providers in order</th></tr></thead>
            <tbody>
              ${channel.routes.map((r) => html`<tr key=${r.prefix}><th scope="row"><code>${r.prefix}</code></th><td data-label="Providers">${r.providers.join(' → ')}</td></tr>`)}
            </tbody>
          </table>
          <p class="hint">A destination no prefix matches follows the order above; the longest matching prefix wins.</p>`
      : channel.providers.length > 1 && html`<p class="hint">No prefix routes: every destination follows the order above.</p>`}
  </section>`;
}

/** Each message channel's providers in routing order, with their circuits and recent sends, and the routing editor. */
export function Providers() {
  const board = usePolling(() => api('GET', '/admin/api/providers'));
  const channels = useChannels();
  const b = board.data;
  if (board.error && !b) return html`<${LoadFailure} error=${board.error} what="the providers" back=${{ href: '/admin/dashboard', label: 'go to the dashboard' }} />`;
  if (!b) return html`<p class="loading">Loading providers…</p>`;
  // A channel with prefix routes (SMS) has them to edit even with one provider; another's order matters from two loaded.
  const editable = b.channels.filter((c) => specOf(channels, c.channel)?.routesSetting || c.providers.length > 1 || c.available?.length > 0 || c.saved);
  return html`<section aria-labelledby="providers-title">
    <h1 id="providers-title">Providers</h1>
    <${Freshness} polls=${[board]} />
    <p class="hint">
      Sends go to a channel's first provider and fail over to the next only when one provably did not take them. A circuit is the provider's, on every channel it serves. Attempts are counted since ${when(b.since)}.
      The tables show the routing serving now; change it under Routing order below (saved to the env file, serving after a deploy).
    </p>
    ${b.channels.length === 0 ? html`<p>No message channel has a provider yet; add one in <a href="/admin/setup">Setup</a>.</p>` : b.channels.map((c) => html`<${ChannelProviders} key=${c.channel} channel=${c} label=${labelOf(channels, c.channel)} />`)}
    ${editable.length > 0 && html`<${RoutingEditor} channels=${editable} specs=${channels} onSaved=${board.refresh} />`}
  </section>`;
}
