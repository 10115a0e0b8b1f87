// `switchboard token reset`: a lost orchestrator token is replaced offline, never under a running server.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { startServerProcess } from '../helpers/process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENV = { DEMO_MODE: 'true', SIMULATOR_PORT: '0' };

/** `switchboard token reset` from source, to its end. */
function tokenReset(...args: string[]) {
  const r = spawnSync(process.execPath, ['--conditions=switchboard-source', '--import', 'tsx', 'gateway/src/cli.ts', 'token', 'reset', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...ENV },
  });
  return { status: r.status, output: r.stdout + r.stderr };
}

const status = (url: string, token: string) => fetch(`${url}/admin/api/status`, { headers: { authorization: `Bearer ${token}` } }).then((res) => res.status);

describe('switchboard token reset', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-token-reset-'));
  const dataDir = join(dir, 'data');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses while a server holds the data dir; stopped, it mints a token that replaces the old one', async () => {
    const missing = tokenReset('--data-dir', join(dir, 'nothing-here'));
    assert.equal(missing.status, 1, missing.output);
    assert.match(missing.output, /switchboard: NOT_FOUND: No Switchboard store in .*nothing-here/);

    let server = await startServerProcess(['--data-dir', dataDir], ENV);
    const old = /Orchestrator token \(shown once; store it now\): (\S+)/.exec(server.output())?.[1];
    assert.ok(old, server.output());
    try {
      const busy = tokenReset('--data-dir', dataDir);
      assert.equal(busy.status, 1, busy.output);
      assert.match(busy.output, /switchboard: CONFLICT: Data dir .* is in use by another Switchboard server \(pid \d+/);
      assert.equal(await status(server.url, old), 200, 'the refused reset changed nothing');
    } finally {
      assert.equal(await server.stop(), 0);
    }

    const reset = tokenReset('--data-dir', dataDir);
    assert.equal(reset.status, 0, reset.output);
    const token = /New orchestrator token for .* \(shown once; store it now\): (sb_orch_\S+)/.exec(reset.output)?.[1];
    assert.ok(token && token !== old, reset.output);

    server = await startServerProcess(['--data-dir', dataDir], ENV);
    try {
      assert.doesNotMatch(server.output(), /Orchestrator token \(shown once/, 'a stored token is not printed again');
      assert.equal(await status(server.url, token), 200);
      assert.equal(await status(server.url, old), 401, 'the lost token no longer works');
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it('names the setting when ORCHESTRATOR_TOKEN is set, which wins over a stored token', () => {
    const r = spawnSync(process.execPath, ['--conditions=switchboard-source', '--import', 'tsx', 'gateway/src/cli.ts', 'token', 'reset', '--data-dir', dataDir], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ORCHESTRATOR_TOKEN: 'f'.repeat(8) + '0123456789abcdef0123456789abcdef01234567' },
    });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /switchboard: CONFLICT: ORCHESTRATOR_TOKEN is set/);
  });

  it('is a usage mistake without "reset"', () => {
    const r = spawnSync(process.execPath, ['--conditions=switchboard-source', '--import', 'tsx', 'gateway/src/cli.ts', 'token'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /switchboard: 'token' needs a command: token reset/);
  });
});
