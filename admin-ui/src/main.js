import { render } from 'preact';
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { session, signIn, signOut } from './api.js';
import { Dashboard, AgentDetail } from './dashboard.js';
import { Setup } from './setup.js';
import './style.css';

function route() {
  const path = location.pathname.replace(/\/+$/, '');
  const agent = /^\/admin\/agents\/([^/]+)$/.exec(path);
  if (agent) return { page: 'agent', agentId: decodeURIComponent(agent[1]) };
  if (path === '/admin/setup') return { page: 'setup' };
  return { page: 'dashboard' };
}

function SignIn({ onDone }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      await signIn(token.trim());
      setToken('');
      onDone();
    } catch (err) {
      setError(err.message);
    } finally {
      setBusy(false);
    }
  };
  return html`<main id="main" class="signin">
    <h1>Sign in to Switchboard</h1>
    <form onSubmit=${submit} class="card">
      <label for="token">Orchestrator token</label>
      <input id="token" name="token" type="password" autocomplete="current-password" required value=${token} onInput=${(e) => setToken(e.target.value)} />
      <p class="hint">Printed once at first start (or set as ORCHESTRATOR_TOKEN). It is exchanged for a session cookie and not stored in the browser.</p>
      ${error && html`<p role="alert" class="error">${error}</p>`}
      <button type="submit" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in'}</button>
    </form>
  </main>`;
}

function Shell({ children, current, onSignOut }) {
  const link = (href, label, page) => html`<a href=${href} aria-current=${current === page ? 'page' : undefined}>${label}</a>`;
  return html`<a class="skip" href="#main">Skip to content</a>
    <header class="topbar">
      <a class="brand" href="/admin/dashboard">Switchboard</a>
      <nav aria-label="Admin pages">
        ${link('/admin/setup', 'Setup', 'setup')} ${link('/admin/dashboard', 'Dashboard', 'dashboard')} ${link('/admin/api-docs', 'API explorer', 'docs')}
        <button type="button" class="link" onClick=${onSignOut}>Sign out</button>
      </nav>
    </header>
    <main id="main">${children}</main>`;
}

function App() {
  const [state, setState] = useState('checking');
  const check = () =>
    session()
      .then((s) => setState(s.signedIn ? 'in' : 'out'))
      .catch(() => setState('out'));
  useEffect(() => {
    check();
  }, []);
  if (state === 'checking') return html`<p class="loading">Loading…</p>`;
  if (state === 'out') return html`<${SignIn} onDone=${check} />`;
  const r = route();
  const out = async () => {
    await signOut().catch(() => undefined);
    setState('out');
  };
  const page = r.page === 'setup' ? html`<${Setup} />` : r.page === 'agent' ? html`<${AgentDetail} agentId=${r.agentId} />` : html`<${Dashboard} />`;
  return html`<${Shell} current=${r.page === 'agent' ? 'dashboard' : r.page} onSignOut=${out}>${page}<//>`;
}

render(html`<${App} />`, document.getElementById('app'));
