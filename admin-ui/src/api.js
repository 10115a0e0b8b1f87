// Talks to the admin API with the session cookie. The CSRF token lives in memory only.
let csrf = '';

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.code;
    this.details = body?.details;
  }
}

export async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { error: 'The server did not answer.' });
  }
  const text = await res.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) throw new ApiError(res.status, parsed);
  return parsed;
}

/** The CSRF token of the signed-in session, for pages that make their own requests. */
export const csrfToken = () => csrf;

export async function session() {
  const state = await api('GET', '/admin/api/session');
  csrf = state.csrfToken ?? '';
  return state;
}

export async function signIn(token) {
  const state = await api('POST', '/admin/api/session', { token });
  csrf = state.csrfToken;
  return state;
}

export async function signOut() {
  await api('DELETE', '/admin/api/session');
  csrf = '';
}
