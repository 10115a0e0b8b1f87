import assert from 'node:assert/strict';

/** A signed-in admin session: its cookie and CSRF token. */
export interface AdminSession {
  readonly cookie: string;
  readonly csrf: string;
}

/** Signs in to the gateway at `url` with the orchestrator token. */
export async function signIn(url: string, token: string): Promise<AdminSession> {
  const res = await fetch(`${url}/admin/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
  assert.equal(res.status, 200, await res.clone().text());
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, csrf: ((await res.json()) as { csrfToken: string }).csrfToken };
}

/** Signs the session out, as the admin UI does (cookie and CSRF token). */
export async function signOut(url: string, session: AdminSession): Promise<void> {
  const res = await fetch(`${url}/admin/api/session`, { method: 'DELETE', headers: { cookie: session.cookie, 'x-csrf-token': session.csrf } });
  assert.equal(res.status, 200);
}

/** The status of an admin read authenticated by the session's cookie alone. */
export async function adminRead(url: string, session: AdminSession): Promise<number> {
  return (await fetch(`${url}/admin/api/my-token`, { headers: { cookie: session.cookie } })).status;
}
