import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startServerProcess, type ServerProcess } from '../../../test/helpers/process.js';

// A second server on a taken port must not start: uWS binds with SO_REUSEPORT unless told otherwise,
// and two Switchboards on one port split the traffic between two stores. Run on both adapters by scripts/test.mjs.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** `switchboard start` from source until it exits by itself; resolves with its exit code and output. */
function startUntilExit(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--conditions=switchboard-source', '--import', 'tsx', 'gateway/src/cli.ts', 'start', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'info', HTTP_ADAPTER: process.env.SWITCHBOARD_HTTP_ADAPTER ?? 'auto' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve, reject) => {
    // A server that starts serves until stopped: past the deadline it is stopped and the test fails with what it printed.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`switchboard start ${args.join(' ')} did not exit within 60 s:\n${output}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** A port free a moment ago. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('a taken port', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-port-'));
    dirs.push(dir);
    return dir;
  };
  let first: ServerProcess;
  let port: number;

  before(async () => {
    // A port named, not 0: Linux lets no second socket share a port bound as port 0, SO_REUSEPORT or not,
    // so only a named port shows the fault (as `npm start` on 3000 did).
    port = await freePort();
    first = await startServerProcess(['--port', String(port), '--data-dir', tempDir()]);
  });
  after(async () => {
    await first?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second switchboard start on the port, and the first keeps every request', async () => {
    const second = await startUntilExit(['--port', String(port), '--data-dir', tempDir()]);
    assert.notEqual(second.code, 0, second.output);
    assert.match(second.output, /switchboard: CONFLICT: Cannot listen on 127\.0\.0\.1:\d+: port in use\. Another Switchboard .* --port/);
    assert.doesNotMatch(second.output, /start-up: ready/);
    // Nothing else answers on the port: every request reaches the first server (its own data dir's store).
    for (let i = 0; i < 6; i++) {
      const health = await fetch(`${first.url}/health`, { headers: { connection: 'close' } });
      assert.equal(health.status, 200);
      await health.arrayBuffer();
    }
  });

  it('refuses a port another program holds, with the same words', async () => {
    const other: Server = createServer();
    const taken = await freePort();
    await new Promise<void>((resolve) => other.listen(taken, '127.0.0.1', resolve));
    try {
      const dataDir = join(tempDir(), 'data');
      const second = await startUntilExit(['--port', String(taken), '--data-dir', dataDir]);
      assert.notEqual(second.code, 0, second.output);
      assert.match(second.output, /switchboard: CONFLICT: Cannot listen on 127\.0\.0\.1:\d+: port in use\./);
      assert.equal(existsSync(dataDir), false, 'a refused first start leaves no data dir behind');
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
