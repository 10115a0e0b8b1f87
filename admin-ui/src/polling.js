import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';

export const REFRESH_MS = 5000;

/** Polls a loader every few seconds while the page is open; a failed poll keeps the last data and says why. */
export function usePolling(load, deps = []) {
  const [data, setData] = useState(undefined);
  const [error, setError] = useState('');
  const [updated, setUpdated] = useState(undefined);
  const refresh = () =>
    load()
      .then((d) => {
        setData(d);
        setError('');
        setUpdated(new Date());
      })
      .catch((e) => setError(e.message));
  useEffect(() => {
    refresh();
    const timer = setInterval(refresh, REFRESH_MS);
    return () => clearInterval(timer);
  }, deps);
  return { data, error, updated, refresh };
}

/** Re-renders every second while `on`, so an age shown on the page stays true. */
function useTicking(on) {
  const [, setNow] = useState(0);
  useEffect(() => {
    if (!on) return undefined;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [on]);
}

function age(since) {
  const s = Math.max(0, Math.round((Date.now() - since.getTime()) / 1000));
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
}

/** When the figures were fetched; when a refresh fails, the error and how old the figures shown are. */
export function Freshness({ polls }) {
  const failed = polls.find((p) => p.error && p.data);
  useTicking(Boolean(failed));
  const updated = polls[0].updated;
  if (failed) {
    return html`<p role="alert" class="error stale">
      Could not refresh: ${failed.error} The figures below are from ${failed.updated.toLocaleTimeString()}, last updated ${age(failed.updated)} ago; retrying every ${REFRESH_MS / 1000} s.
    </p>`;
  }
  return html`<p class="hint">Refreshes every ${REFRESH_MS / 1000} s${updated ? `; updated ${updated.toLocaleTimeString()}` : ''}.</p>`;
}


/** A page whose first load failed: what went wrong, that it is retried, and where to go instead. */
export function LoadFailure({ error, what, back }) {
  return html`<section class="card" aria-labelledby="failure-title">
    <h1 id="failure-title">Could not load ${what}</h1>
    <p role="alert" class="error">${error}</p>
    <p>The page retries every ${REFRESH_MS / 1000} s. If it keeps failing, check that the gateway is running and that you are signed in, or <a href=${back.href}>${back.label}</a>.</p>
  </section>`;
}

/**
 * A cursor-paged list whose first page polls: older pages are appended on request. `rows` joins the
 * first page and the older ones, each row once (the first page moves on while it polls).
 */
export function useOlder(load) {
  const [older, setOlder] = useState({ rows: [], cursor: undefined, error: '', busy: false });
  const more = async (cursor) => {
    setOlder((o) => ({ ...o, busy: true, error: '' }));
    try {
      const page = await load(cursor);
      setOlder((o) => ({ rows: [...o.rows, ...page.rows], cursor: page.nextCursor, error: '', busy: false }));
    } catch (e) {
      setOlder((o) => ({ ...o, busy: false, error: `Could not load older entries: ${e.message} Try again.` }));
    }
  };
  const rows = (first, key) => {
    const seen = new Set();
    return [...first, ...older.rows].filter((row) => !seen.has(key(row)) && seen.add(key(row)));
  };
  return { ...older, more, rows };
}

/** The button that loads the next older page, while there is one, and why it failed. */
export function OlderButton({ older, firstCursor, label }) {
  const cursor = older.cursor === undefined ? firstCursor : older.cursor;
  return html`${cursor && html`<button type="button" onClick=${() => older.more(cursor)} disabled=${older.busy}>${older.busy ? 'Loading…' : label}</button>`}
    ${older.error && html`<p role="alert" class="error">${older.error}</p>`}`;
}
