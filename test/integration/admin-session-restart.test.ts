import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServerProcess } from '../helpers/process.js';
import { adminRead, signIn, signOut, type AdminSession } from '../helpers/admin-session.js';

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
    let session: AdminSession;
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
