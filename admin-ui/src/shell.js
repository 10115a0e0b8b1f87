import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { session, signIn, signOut } from './api.js';

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
        ${link('/admin/setup', 'Setup', 'setup')} ${link('/admin/dashboard', 'Dashboard', 'dashboard')} ${link('/admin/calls', 'Calls', 'calls')} ${link('/admin/providers', 'Providers', 'providers')} ${link('/admin/do-not-contact', 'Do not contact', 'contacts')} ${link('/admin/api-docs', 'API explorer', 'docs')}
        <button type="button" class="link" onClick=${onSignOut}>Sign out</button>
      </nav>
    </header>
    <main id="main">${children}</main>`;
}

/** Every admin page: the sign-in form until there is a session, then the page inside the shared header with its sign-out. */
export function AdminPage({ current, page }) {
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
  const out = async () => {
    await signOut().catch(() => undefined);
    setState('out');
  };
  return html`<${Shell} current=${current} onSignOut=${out}>${page()}<//>`;
}
