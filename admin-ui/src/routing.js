import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { labelOf, listOf, specOf } from './channels.js';
import { deployOutcome } from './setup.js';

/** What the editor starts from for a channel: the saved routing waiting for a deploy, else the serving one. */
function baseline(channel) {
  const from = channel.saved ?? { providers: channel.providers.map((p) => p.provider), routes: channel.routes };
  return { providers: [...from.providers], routes: from.routes.map((r) => ({ prefix: r.prefix, providers: r.providers.join(',') })) };
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * One channel's providers as an ordered list with Move up / Move down / Remove buttons, and an Add button for each
 * loaded provider the order leaves out (plain buttons: Tab and Enter work).
 */
function OrderList({ channel, name, providers, unused, onChange }) {
  const move = (i, by) => {
    const next = [...providers];
    [next[i], next[i + by]] = [next[i + by], next[i]];
    onChange(next);
  };
  const label = `${name} routing order`;
  return html`<ol class="routing-order" aria-label=${label} data-channel=${channel}>
      ${providers.map(
        (p, i) => html`<li key=${p} data-provider=${p}>
          <span class="provider-name">${p}${i === 0 ? html` <small>(the channel's own)</small>` : ''}</span>
          <button type="button" class="link" disabled=${i === 0} onClick=${() => move(i, -1)} aria-label=${`Move ${p} up in the ${label}`}>Move up</button>
          <button type="button" class="link" disabled=${i === providers.length - 1} onClick=${() => move(i, 1)} aria-label=${`Move ${p} down in the ${label}`}>Move down</button>
          <button type="button" class="link" disabled=${providers.length === 1} onClick=${() => onChange(providers.filter((q) => q !== p))} aria-label=${`Remove ${p} from the ${label}`}>Remove</button>
        </li>`,
      )}
    </ol>
    ${unused.length > 0 &&
    html`<p class="hint">
      Loaded but not in the order (sends never go there):
      ${unused.map((p) => html` <button type="button" onClick=${() => onChange([...providers, p])} aria-label=${`Add ${p} to the ${label}`}>Add ${p}</button>`)}
    </p>`}`;
}

/** The channel's loaded providers that a draft order leaves out. */
function unusedOf(channel, providers) {
  const known = [...channel.providers.map((p) => p.provider), ...(channel.available ?? []), ...(channel.saved?.providers ?? [])];
  return [...new Set(known)].filter((p) => !providers.includes(p));
}

/** A channel's prefix routes (SMS_ROUTES) as rows of a prefix and its providers in order, comma-separated. */
function RouteRows({ name, setting, routes, onChange }) {
  const set = (i, key, value) => onChange(routes.map((r, j) => (j === i ? { ...r, [key]: value } : r)));
  return html`<fieldset class="prefix-routes">
    <legend>${name} routes by destination prefix (${setting})</legend>
    ${routes.length === 0 && html`<p class="hint">None: every destination follows the order above.</p>`}
    ${routes.map(
      (r, i) => html`<div class="route-row" key=${i}>
        <label>Prefix <input name=${`route-prefix-${i}`} value=${r.prefix} placeholder="+44" spellcheck="false" autocomplete="off" size="8" onInput=${(e) => set(i, 'prefix', e.target.value)} /></label>
        <label>Providers in order <input name=${`route-providers-${i}`} value=${r.providers} placeholder="telnyx,twilio" spellcheck="false" autocomplete="off" onInput=${(e) => set(i, 'providers', e.target.value)} /></label>
        <button type="button" class="link" onClick=${() => onChange(routes.filter((_, j) => j !== i))} aria-label=${`Remove the route for ${r.prefix || 'this prefix'}`}>Remove</button>
      </div>`,
    )}
    <button type="button" onClick=${() => onChange([...routes, { prefix: '', providers: '' }])}>Add a prefix route</button>
    <p class="hint">The longest matching prefix wins; each route names providers of the order above.</p>
  </fieldset>`;
}

/**
 * The routing editor: each channel's order and the SMS prefix routes, saved to the env file through the
 * admin API like every setting, and serving after a deploy (which this offers once something is saved).
 * `specs` is the channel table: labels, and the settings each channel's routing is saved as.
 */
export function RoutingEditor({ channels, specs, onSaved }) {
  const nameOf = (channel) => labelOf(specs, channel);
  const routesOf = (channel) => specOf(specs, channel)?.routesSetting;
  const sendable = specs.filter((s) => s.sends);
  const settings = listOf([...sendable.map((s) => s.driverSetting), ...sendable.flatMap((s) => (s.routesSetting ? [s.routesSetting] : []))]);
  const [drafts, setDrafts] = useState({});
  const [outcome, setOutcome] = useState(undefined);
  const [busy, setBusy] = useState(false);
  const draftOf = (c) => drafts[c.channel] ?? baseline(c);
  const change = (c, patch) => setDrafts((d) => ({ ...d, [c.channel]: { ...draftOf(c), ...patch } }));
  const changed = channels.filter((c) => !same(draftOf(c), baseline(c)));
  const pending = channels.filter((c) => c.saved);

  const save = async () => {
    setBusy(true);
    setOutcome(undefined);
    const body = {
      channels: changed.map((c) => {
        const d = draftOf(c);
        const entry = { channel: c.channel, providers: d.providers };
        if (routesOf(c.channel)) entry.routes = d.routes.map((r) => ({ prefix: r.prefix.trim(), providers: r.providers.split(',').map((p) => p.trim()).filter(Boolean) }));
        return entry;
      }),
    };
    try {
      const saved = await api('PUT', '/admin/api/providers/routing', body);
      setDrafts({});
      setOutcome({ kind: 'ok', text: `Saved ${saved.saved.join(', ')} to ${saved.envFile}. The new routing serves after a deploy.` });
      await onSaved();
    } catch (e) {
      const details = (e.details ?? []).map((d) => d.message).filter(Boolean);
      setOutcome({ kind: 'error', text: `Not saved: ${e.message}`, details: details.length > 1 ? details : [] });
    } finally {
      setBusy(false);
    }
  };
  const deploy = async () => {
    setBusy(true);
    setOutcome({ kind: 'info', text: 'Deploying: the server restarts with the saved settings…' });
    try {
      const { deploy: started } = await api('POST', '/admin/api/deploy');
      const status = await deployOutcome(started.startedAt);
      const last = status.lastDeploy;
      setOutcome(
        last.outcome === 'deployed'
          ? { kind: 'ok', text: 'Deployed: the saved routing serves now.' }
          : { kind: 'error', text: `Deploy failed: ${last.error?.message ?? 'see the server log'}. The previous settings serve again${last.envFileRestored ? ', and the env file was put back as it was' : ''}.` },
      );
      await onSaved();
    } catch (e) {
      setOutcome({ kind: 'error', text: `Deploy failed: ${e.message}` });
    } finally {
      setBusy(false);
    }
  };

  return html`<section class="card" aria-labelledby="routing-title">
    <h2 id="routing-title">Routing order</h2>
    <p class="hint">
      Saved to the env file${settings && ` as ${settings}`}, like every setting:${' '}<strong>a saved change serves only after a deploy</strong> (the server restarts in-process with the saved settings).
      The first provider is the channel's own: agents' pool numbers are held there, so put another first only if those numbers are held at it.
      In a cluster this writes this gateway's env file; give runtime nodes the same values and restart them.
    </p>
    ${pending.length > 0 &&
    html`<p class="banner" role="status" data-pending="true">
      Saved, not yet serving: ${pending.map((c) => `${nameOf(c.channel)} ${c.saved.providers.join(' → ')}`).join('; ')}. Deploy to apply it.
    </p>`}
    ${channels.map(
      (c) => html`<div class="routing-channel" key=${c.channel}>
        <h3>${nameOf(c.channel)}</h3>
        <${OrderList} channel=${c.channel} name=${nameOf(c.channel)} providers=${draftOf(c).providers} unused=${unusedOf(c, draftOf(c).providers)} onChange=${(providers) => change(c, { providers })} />
        ${routesOf(c.channel) && html`<${RouteRows} name=${nameOf(c.channel)} setting=${routesOf(c.channel)} routes=${draftOf(c).routes} onChange=${(routes) => change(c, { routes })} />`}
      </div>`,
    )}
    <div class="nav">
      <button type="button" class="primary" onClick=${save} disabled=${busy || changed.length === 0}>Save routing</button>
      ${changed.length > 0 && html`<button type="button" onClick=${() => setDrafts({})} disabled=${busy}>Discard changes</button>`}
      ${pending.length > 0 && html`<button type="button" onClick=${deploy} disabled=${busy}>Deploy now</button>`}
    </div>
    ${outcome &&
    html`<div role=${outcome.kind === 'error' ? 'alert' : 'status'} class=${`routing-outcome ${outcome.kind}`}>
      <p>${outcome.text}</p>
      ${outcome.details?.length > 0 && html`<ul>${outcome.details.map((d) => html`<li>${d}</li>`)}</ul>`}
    </div>`}
  </section>`;
}
