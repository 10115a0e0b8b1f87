import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startServerProcess, type ServerProcess } from '../helpers/process.js';
import { eventually } from '@switchboard/runtime/testing';

const TOKEN = `sb_orch_${randomBytes(24).toString('base64url')}`;

/** Polls the status until the deploy that started at `startedAt` has an outcome; 503s of the swap are retried. */
async function outcomeOf(url: string, startedAt: string): Promise<any> {
  return eventually(
    async () => {
      const res = await fetch(`${url}/admin/api/status`, { headers: { authorization: `Bearer ${TOKEN}` } }).catch(() => undefined);
      if (res?.status !== 200) return void (await res?.arrayBuffer());
      const status = (await res.json()) as any;
      return status.lastDeploy?.startedAt === startedAt && status.lastDeploy.outcome !== 'deploying' && status;
    },
    { timeoutMs: 90_000, intervalMs: 100, message: 'the outcome of the deploy' },
  );
}

describe('a failed deploy (a real switchboard start process)', () => {
  it('shows in the status with its error, leaves the env file as it was, and the next start starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-deploy-outcome-'));
    const envFile = join(dir, '.env');
    const original = 'MARKUP_PERCENT=1\nDEMO_MODE=true\n';
    writeFileSync(envFile, original, { mode: 0o600 });
    const args = ['--settings', envFile, '--data-dir', join(dir, 'data')];
    const env = { ORCHESTRATOR_TOKEN: TOKEN };
    let server: ServerProcess | undefined = await startServerProcess(args, env);
    try {
      const call = (method: string, path: string, json?: unknown) =>
        fetch(`${server!.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${TOKEN}`, ...(json ? { 'content-type': 'application/json' } : {}) },
          ...(json ? { body: JSON.stringify(json) } : {}),
        });

      // A driver package that is not a driver: refused before anything stops, and the file is put back.
      assert.equal((await call('POST', '/admin/api/save', { settings: { DRIVERS: 'left-pad' } })).status, 200);
      assert.match(readFileSync(envFile, 'utf8'), /^DRIVERS=left-pad$/m);
      const refused = await call('POST', '/admin/api/deploy');
      assert.equal(refused.status, 400);
      const body = (await refused.json()) as any;
      assert.equal(body.code, 'VALIDATION_FAILED');
      assert.match(body.error, /left-pad/);
      assert.match(body.error, /env file was put back/);
      let status = (await (await call('GET', '/admin/api/status')).json()) as any;
      assert.equal(status.lastDeploy.outcome, 'failed');
      assert.match(status.lastDeploy.error.message, /left-pad/);
      assert.equal(status.lastDeploy.envFileRestored, true);
      assert.equal(readFileSync(envFile, 'utf8'), original, 'the env file holds the previous settings');

      // Passes every check before the swap, fails at start-up (no loaded driver is called "fax"):
      // the previous settings serve again, the status says why, the file is put back.
      assert.equal((await call('POST', '/admin/api/save', { settings: { SMS_DRIVER: 'fax' } })).status, 200);
      const accepted = await call('POST', '/admin/api/deploy');
      assert.equal(accepted.status, 202);
      const deploy = ((await accepted.json()) as any).deploy;
      assert.equal(deploy.outcome, 'deploying');
      status = await outcomeOf(server.url, deploy.startedAt);
      assert.equal(status.lastDeploy.outcome, 'failed');
      assert.equal(status.lastDeploy.error.code, 'DRIVER_NOT_FOUND');
      assert.match(status.lastDeploy.error.message, /SMS_DRIVER=fax/);
      assert.equal(status.lastDeploy.envFileRestored, true);
      assert.equal(status.settings.SMS_DRIVER, '', 'the previous settings serve');
      assert.equal(readFileSync(envFile, 'utf8'), original);
      assert.match(server.output(), /deploy failed/);

      assert.equal(await server.stop(), 0);
      server = undefined;
      // The next start reads the restored file and starts.
      server = await startServerProcess(args, env);
      assert.equal((await fetch(`${server.url}/health`)).status, 200);
      const restarted = (await (await call('GET', '/admin/api/status')).json()) as any;
      assert.equal(restarted.settings.MARKUP_PERCENT, 1);
      assert.equal(restarted.lastDeploy, null);
    } finally {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start with a weak ORCHESTRATOR_TOKEN, naming the rule', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-weak-token-'));
    try {
      await assert.rejects(startServerProcess(['--data-dir', join(dir, 'data')], { ORCHESTRATOR_TOKEN: 'a' }), /ORCHESTRATOR_TOKEN is 1 character long; a token needs at least 32/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
