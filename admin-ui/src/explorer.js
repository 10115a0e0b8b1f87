import { render } from 'preact';
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, csrfToken } from './api.js';
import { AdminPage } from './shell.js';
import { count } from './words.js';
import './style.css';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** Most of a response body the page shows; the rest is cut, as a browser tab would choke on more. */
const SHOWN_BYTES = 200_000;

/** The document's operations, each with what the page needs to list, describe and call it. */
function operationsOf(doc) {
  const list = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      list.push({ ...op, id: op.operationId ?? `${method}-${path}`, method, path, tag: op.tags?.[0] ?? 'Other', parameters: op.parameters ?? [] });
    }
  }
  return list;
}

const slug = (tag) => `tag-${tag.replace(/[^A-Za-z0-9]/g, '-')}`;

function byTag(ops) {
  const groups = new Map();
  for (const op of ops) groups.set(op.tag, [...(groups.get(op.tag) ?? []), op]);
  return [...groups];
}

/** A value of the schema's shape to start a request body from: its example, or its required fields. */
function skeleton(schema) {
  if (!schema) return null;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.anyOf?.length) return skeleton(schema.anyOf[0]);
  switch (schema.type) {
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((name) => [name, skeleton(schema.properties?.[name])]));
    case 'array':
      return [];
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

function typeOf(schema = {}) {
  if (schema.enum) return schema.enum.join(' | ');
  if (schema.anyOf) return schema.anyOf.map((s) => (s.const !== undefined ? JSON.stringify(s.const) : typeOf(s))).join(' | ');
  return schema.type ?? 'any';
}

function requestBodyOf(op) {
  const content = op.requestBody?.content;
  if (!content) return undefined;
  const [type, media] = Object.entries(content)[0];
  const json = type === 'application/json';
  const start = media.example ?? (json ? skeleton(media.schema) : '');
  return { type, schema: media.schema, text: json ? JSON.stringify(start, null, 2) : String(start ?? '') };
}

async function readBody(res) {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const stream = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    // An event stream does not end: show what came first.
    if (stream || text.length > SHOWN_BYTES) {
      await reader.cancel();
      return `${text.slice(0, SHOWN_BYTES)}\n… (${stream ? 'event stream: first chunk shown' : 'cut'})`;
    }
  }
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The admin API takes the session cookie; the rest of the API is bearer-only. */
const takesSession = (op) => op.path.startsWith('/admin/api/');
/** A public operation lists no security requirement (`security: []`). */
const isPublic = (op) => !op.security?.length;

function credentialsNote(op, token) {
  if (isPublic(op)) return 'Public: sent without credentials.';
  if (takesSession(op)) return 'Sent with your admin session.';
  return token.trim() ? 'Sent with the bearer token above.' : 'Needs a bearer token: paste one above (an agent’s, or use the team token).';
}

/** Sends the operation with the values of its form: admin routes with the session, the others with the bearer token above. */
async function send(op, values, body, token) {
  const inputs = (where) => op.parameters.filter((p) => p.in === where && values[`${where}:${p.name}`]);
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name) => encodeURIComponent(values[`path:${name}`] ?? ''));
  const query = new URLSearchParams(inputs('query').map((p) => [p.name, values[`query:${p.name}`]])).toString();
  const headers = { accept: 'application/json, */*;q=0.5' };
  for (const p of inputs('header')) headers[p.name] = values[`header:${p.name}`];
  const useToken = !takesSession(op) && !isPublic(op) && token.trim() !== '';
  if (useToken) headers.authorization = `Bearer ${token.trim()}`;
  else if (takesSession(op) && op.method !== 'get') headers['x-csrf-token'] = csrfToken();
  if (body) headers['content-type'] = body.type;
  const started = performance.now();
  const res = await fetch(`${path}${query ? `?${query}` : ''}`, {
    method: op.method.toUpperCase(),
    headers,
    body: body ? body.text : undefined,
    credentials: useToken ? 'omit' : 'same-origin',
  });
  const text = await readBody(res);
  return { status: res.status, statusText: res.statusText, ms: Math.round(performance.now() - started), contentType: res.headers.get('content-type') ?? '', text };
}

function Schema({ schema, label }) {
  return html`<details class="schema"><summary>${label}</summary><pre tabindex="0">${JSON.stringify(schema, null, 2)}</pre></details>`;
}

function ParameterField({ op, p, value, onInput }) {
  const id = `${op.id}-${p.in}-${p.name}`;
  const hint = `${p.in}, ${typeOf(p.schema)}${p.required ? ', required' : ''}`;
  const options = p.schema?.enum ?? p.schema?.anyOf?.map((s) => s.const).filter((c) => c !== undefined);
  const control = options?.length
    ? html`<select id=${id} aria-describedby=${`${id}-hint`} required=${p.required} value=${value} onChange=${(e) => onInput(e.target.value)}>
        ${!p.required && html`<option value="">(none)</option>`} ${options.map((o) => html`<option value=${o}>${o}</option>`)}
      </select>`
    : html`<input id=${id} type="text" aria-describedby=${`${id}-hint`} required=${p.required} value=${value} onInput=${(e) => onInput(e.target.value)} />`;
  return html`<div class="field">
    <label for=${id}>${p.name}</label>
    ${control}
    <small id=${`${id}-hint`}>${hint}${p.description ? ` — ${p.description}` : ''}</small>
  </div>`;
}

function TryIt({ op, token }) {
  const [values, setValues] = useState({});
  const [body, setBody] = useState(() => requestBodyOf(op));
  const [result, setResult] = useState(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    try {
      setResult(await send(op, values, body, token));
    } catch (e) {
      setResult({ status: 0, statusText: 'no answer', ms: 0, text: String(e.message ?? e) });
    } finally {
      setBusy(false);
    }
  };
  const bodyId = `${op.id}-body`;
  return html`<form class="try" onSubmit=${submit} aria-label=${`Try ${op.method.toUpperCase()} ${op.path}`}>
    ${op.parameters.map(
      (p) => html`<${ParameterField} op=${op} p=${p} value=${values[`${p.in}:${p.name}`] ?? ''} onInput=${(v) => setValues({ ...values, [`${p.in}:${p.name}`]: v })} />`,
    )}
    ${body &&
    html`<div class="field">
      <label for=${bodyId}>Request body (${body.type === 'application/json' ? 'JSON' : body.type})</label>
      <textarea id=${bodyId} rows=${Math.min(14, body.text.split('\n').length + 1)} spellcheck="false" value=${body.text} onInput=${(e) => setBody({ ...body, text: e.target.value })}></textarea>
    </div>`}
    <p class="hint">${credentialsNote(op, token)}</p>
    <button type="submit" class="primary" disabled=${busy}>${busy ? 'Sending…' : 'Send request'}</button>
    <p role="status" class="result">${result ? `${result.status} ${result.statusText} · ${result.ms} ms${result.contentType ? ` · ${result.contentType}` : ''}` : ''}</p>
    ${result && html`<pre class="response-body" tabindex="0" aria-label="Response body">${result.text || '(empty body)'}</pre>`}
  </form>`;
}

function OperationDetail({ op, token }) {
  const body = op.requestBody?.content;
  return html`<div class="op-body" id=${`${op.id}-panel`}>
    ${op.description && html`<p>${op.description}</p>`}
    <p class="hint">Operation id <code>${op.id}</code>.</p>
    ${op.parameters.length > 0 &&
    html`<h4>Parameters</h4>
      <div class="table-wrap"><table>
        <thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Type</th><th scope="col">Description</th></tr></thead>
        <tbody>${op.parameters.map((p) => html`<tr><th scope="row"><code>${p.name}</code>${p.required ? ' *' : ''}</th><td>${p.in}</td><td>${typeOf(p.schema)}</td><td>${p.description ?? p.schema?.description ?? ''}</td></tr>`)}</tbody>
      </table></div>`}
    ${body &&
    html`<h4>Request body</h4>
      ${Object.entries(body).map(([type, media]) => html`<${Schema} schema=${media.schema} label=${`${type} schema`} />`)}`}
    <h4>Responses</h4>
    <dl class="responses">
      ${Object.entries(op.responses ?? {}).map(
        ([status, r]) => html`<dt>${status}</dt><dd>${r.description}${Object.entries(r.content ?? {}).map(([type, media]) => media.schema && html`<${Schema} schema=${media.schema} label=${`${type} schema`} />`)}</dd>`,
      )}
    </dl>
    <h4>Try it</h4>
    <${TryIt} op=${op} token=${token} />
  </div>`;
}

function Operation({ op, open, onToggle, token }) {
  return html`<li class="op" data-operation=${op.id} id=${op.id}>
    <h3>
      <button type="button" class="op-toggle" aria-expanded=${open ? 'true' : 'false'} aria-controls=${open ? `${op.id}-panel` : undefined} onClick=${onToggle}>
        <span class=${`method ${op.method}`}>${op.method.toUpperCase()}</span> <code>${op.path}</code> <span class="summary">${op.summary ?? ''}</span>
      </button>
    </h3>
    ${open && html`<${OperationDetail} op=${op} token=${token} />`}
  </li>`;
}

/** The bearer token for the agent-facing routes (the admin routes use the session). */
function Credentials({ token, onChange }) {
  const [note, setNote] = useState('');
  const team = async () => {
    try {
      onChange((await api('GET', '/admin/api/my-token')).token);
      setNote('The team token is filled in.');
    } catch (e) {
      setNote(`Could not read the team token: ${e.message}`);
    }
  };
  return html`<fieldset class="card credentials">
    <legend>Credentials</legend>
    <p>Admin routes (<code>/admin/api/…</code>) go out with your admin session. The other routes take a bearer token:</p>
    <div class="field">
      <label for="bearer">Bearer token</label>
      <input id="bearer" type="password" autocomplete="off" spellcheck="false" aria-describedby="bearer-hint" value=${token} onInput=${(e) => onChange(e.target.value)} />
      <small id="bearer-hint">An agent’s token (from its provisioning), the team token or the orchestrator token. It stays in this page’s memory.</small>
    </div>
    <button type="button" onClick=${team}>Use the team token</button>
    <span role="status" class="hint"> ${note}</span>
  </fieldset>`;
}

/** Every route of the OpenAPI document by tag; each opens to its parameters, schemas and responses, and can be sent. */
function Explorer() {
  const [doc, setDoc] = useState(undefined);
  const [error, setError] = useState('');
  const [filter, setFilter] = useState('');
  const [open, setOpen] = useState(() => new Set([decodeURIComponent(location.hash.slice(1))].filter(Boolean)));
  const [token, setToken] = useState('');
  useEffect(() => {
    fetch('/api/v1/openapi.json', { headers: { accept: 'application/json' } })
      .then((res) => (res.ok ? res.json() : Promise.reject(new Error(`The OpenAPI document did not load (HTTP ${res.status}).`))))
      .then(setDoc, (e) => setError(e.message));
  }, []);
  if (error) return html`<p role="alert" class="error">${error}</p>`;
  if (!doc) return html`<p class="loading">Loading the API description…</p>`;
  const words = filter.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const ops = operationsOf(doc).filter((op) => {
    const text = `${op.method} ${op.path} ${op.summary ?? ''} ${op.tag} ${op.id}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
  const toggle = (id) => {
    const next = new Set(open);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setOpen(next);
    history.replaceState(null, '', next.has(id) ? `#${encodeURIComponent(id)}` : location.pathname);
  };
  return html`<section aria-labelledby="explorer-title" class="explorer">
    <h1 id="explorer-title">API explorer</h1>
    <p class="hint">
      The routes of <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (Switchboard ${doc.info?.version}), by tag. Open one to see its parameters, schemas and responses, and
      send it.
    </p>
    <${Credentials} token=${token} onChange=${setToken} />
    <div class="field">
      <label for="filter">Filter routes</label>
      <input id="filter" type="search" value=${filter} onInput=${(e) => setFilter(e.target.value)} aria-describedby="filter-count" />
      <small id="filter-count" role="status">${count(ops.length, 'route')} shown.</small>
    </div>
    ${byTag(ops).map(
      ([tag, list]) => html`<section aria-labelledby=${slug(tag)}>
        <h2 id=${slug(tag)}>${tag}</h2>
        <ul class="ops">
          ${list.map((op) => html`<${Operation} key=${op.id} op=${op} open=${open.has(op.id)} onToggle=${() => toggle(op.id)} token=${token} />`)}
        </ul>
      </section>`,
    )}
  </section>`;
}

render(html`<${AdminPage} current="docs" page=${() => html`<${Explorer} />`} />`, document.getElementById('app'));
