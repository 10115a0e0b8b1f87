import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, csrfToken } from './api.js';
import { count, when } from './words.js';

const SOURCES = {
  'sms-stop': 'replied STOP',
  'whatsapp-opt-out': 'opted out on WhatsApp',
  'email-unsubscribe': 'unsubscribed by email',
  'email-bounce': 'email bounced',
  complaint: 'complained',
  agent: 'asked the agent',
  admin: 'added by the operator',
  import: 'imported',
};

/** Posts a CSV file to the import route (the one admin call whose body is not JSON). */
async function importCsv(file) {
  const res = await fetch('/admin/api/do-not-contact/import', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { accept: 'application/json', 'content-type': 'text/csv', 'x-csrf-token': csrfToken() },
    body: await file.text(),
  });
  const body = await res.json().catch(() => undefined);
  if (!res.ok) throw new ApiError(res.status, body);
  return body;
}

function AddForm({ onDone }) {
  const [address, setAddress] = useState('');
  const [scope, setScope] = useState('');
  const [reason, setReason] = useState('');
  const submit = async (e) => {
    e.preventDefault();
    try {
      const done = await api('POST', '/admin/api/do-not-contact', { address, ...(scope.trim() ? { scope: scope.trim() } : {}), ...(reason.trim() ? { reason: reason.trim() } : {}) });
      setAddress('');
      setReason('');
      onDone({ text: done.changed ? `${done.address} is on the list: no agent${done.scope === '*' ? '' : ` ${done.scope}`} may message or call it.` : `${done.address} was already on the list.`, error: false });
    } catch (err) {
      onDone({ text: `Could not add it: ${err.message}`, error: true });
    }
  };
  return html`<form class="card" onSubmit=${submit} aria-labelledby="add-title">
    <h2 id="add-title">Add an address</h2>
    <label>Address <input name="address" required value=${address} onInput=${(e) => setAddress(e.currentTarget.value)} placeholder="+14155550100 or name@example.com" /></label>
    <label>Agent <input name="scope" value=${scope} onInput=${(e) => setScope(e.currentTarget.value)} placeholder="every agent" /></label>
    <label>Reason <input name="reason" value=${reason} onInput=${(e) => setReason(e.currentTarget.value)} /></label>
    <button type="submit">Add to the list</button>
  </form>`;
}

function ImportForm({ onDone }) {
  const submit = async (e) => {
    e.preventDefault();
    const file = e.currentTarget.elements.csv.files[0];
    if (!file) return onDone({ text: 'Choose a CSV file first.', error: true });
    try {
      const done = await importCsv(file);
      const rejected = done.rejected.map((r) => `line ${r.line} (${r.value}): ${r.reason}`).join('; ');
      onDone({ text: `Imported ${count(done.added, 'address', 'addresses')}; ${count(done.alreadyListed, 'was', 'were')} already listed.${rejected ? ` Not imported: ${rejected}. Fix those rows and import them again.` : ''}`, error: done.rejected.length > 0 });
    } catch (err) {
      onDone({ text: `Could not import the file: ${err.message}`, error: true });
    }
  };
  return html`<form class="card" onSubmit=${submit} aria-labelledby="import-title">
    <h2 id="import-title">Import a CSV</h2>
    <p class="hint">One address per row, a reason in an optional second column; a header row <code>address,reason</code> is skipped. Every agent honours the imported entries.</p>
    <label>File <input name="csv" type="file" accept=".csv,text/csv" /></label>
    <button type="submit">Import</button>
  </form>`;
}

/** The operator's do-not-contact list: each entry with its source and time; add, remove with a reason, import. */
export function DoNotContact() {
  const [entries, setEntries] = useState(undefined);
  const [note, setNote] = useState(undefined);
  const load = () =>
    api('GET', '/admin/api/do-not-contact?limit=500')
      .then((page) => setEntries(page.entries))
      .catch((err) => setNote({ text: `Could not load the list: ${err.message} Reload the page to try again.`, error: true }));
  useEffect(() => {
    load();
  }, []);
  const done = (result) => {
    setNote(result);
    load();
  };
  const remove = async (entry) => {
    const reason = prompt(`Why may ${entry.address} be contacted again? The log keeps your answer.`);
    if (!reason?.trim()) return;
    try {
      await api('POST', '/admin/api/do-not-contact/remove', { address: entry.address, scope: entry.scope, reason: reason.trim() });
      done({ text: `${entry.address} is off the list${entry.scope === '*' ? '' : ` for ${entry.scope}`}.`, error: false });
    } catch (err) {
      setNote({ text: `Could not remove it: ${err.message}`, error: true });
    }
  };
  return html`<h1>Do not contact</h1>
    <p class="hint">No agent may message or call an address on this list, on any channel unless an entry was narrowed to some (<code>POST /admin/api/do-not-contact/narrow</code>). People land here by replying STOP, unsubscribing, complaining, asking an agent, or by you.</p>
    ${note && html`<p role=${note.error ? 'alert' : 'status'} class=${note.error ? 'error' : 'ok'}>${note.text}</p>`}
    <div class="stats">
      <${AddForm} onDone=${done} />
      <${ImportForm} onDone=${done} />
    </div>
    ${entries === undefined
      ? html`<p class="loading">Loading…</p>`
      : entries.length === 0
        ? html`<p>The list is empty.</p>`
        : html`<div class="table-wrap"><table class="stack" aria-label="Do-not-contact list">
            <thead><tr><th scope="col">Address</th><th scope="col">Agents</th><th scope="col">Why</th><th scope="col">Added</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              ${entries.map(
                (e) => html`<tr key=${`${e.address} ${e.scope}`}>
                  <td><code>${e.address}</code></td>
                  <td>${e.scope === '*' ? 'every agent' : e.scope}${e.channels ? html` <span class="chip">${e.channels.join(', ')} only</span>` : ''}</td>
                  <td>${SOURCES[e.source] ?? e.source}${e.reason ? `: ${e.reason}` : ''}</td>
                  <td>${when(e.createdAt)}</td>
                  <td><button type="button" class="link" onClick=${() => remove(e)} aria-label=${`Remove ${e.address}`}>Remove</button></td>
                </tr>`,
              )}
            </tbody>
          </table></div>`}`;
}
