import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServerProcess } from '../helpers/process.js';

/** A signed-in admin session: its cookie and CSRF token. */
interface Session {
  readonly cookie: string;
  readonly csrf: string;
}

async function signIn(url: string, token: string): Promise<Session> {
  const res = await fetch(`${url}/admin/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
  assert.equal(res.status, 200, await res.clone().text());
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, csrf: ((await res.json()) as { csrfToken: string }).csrfToken };
}

async function signOut(url: string, session: Session): Promise<void> {
  const res = await fetch(`${url}/admin/api/session`, { method: 'DELETE', headers: { cookie: session.cookie, 'x-csrf-token': session.csrf } });
  assert.equal(res.status, 200);
}

/** The status of an admin read authenticated by the session's cookie alone. */
async function adminRead(url: string, session: Session): Promise<number> {
  return (await fetch(`${url}/admin/api/my-token`, { headers: { cookie: session.cookie } })).status;
}

describe('admin sessions across a restart (embedded: one process at a time on a data dir)', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-sessions-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  const start = (token: string) => startServerProcess([], { DATA_DIR: dataDir, ORCHESTRATOR_TOKEN: token });

  it('a signed-out cookie is refused after a restart', async () => {
    const token = `sb_orch_${randomBytes(16).toString('hex')}`;
    const first = await start(token);
    let session: Session;
    try {
      session = await signIn(first.url, token);
      assert.equal(await adminRead(first.url, session), 200);
      await signOut(first.url, session);
      assert.equal(await adminRead(first.url, session), 401);
    } finally {
      await first.stop();
    }
    const second = await start(token);
    try {
      assert.equal(await adminRead(second.url, session), 401, 'the sign-out held across the restart');
      assert.equal(await adminRead(second.url, await signIn(second.url, token)), 200, 'a new sign-in works');
    } finally {
      await second.stop();
    }
  });
});
