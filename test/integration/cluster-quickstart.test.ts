// docs/cluster.md's "Quick start on one machine", run as a reader would paste it into one bash: its
// fenced bash blocks in order, against the real nats-server and PostgreSQL. Only what a shared test
// machine forces is changed: free ports for the fixed ones, a database name of its own, and a
// temporary folder as the working directory (with the checkout's node_modules, as in the checkout).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { freePort } from '@switchboard/runtime/testing';
import { buildIfStale } from '../../scripts/build-if-stale.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The fixed ports the quick start uses: NATS, its monitor, two gateways, two probes, the simulator. */
const PORTS = [4222, 8222, 3000, 3001, 9101, 9102, 4010] as const;
/** The whole script, start to stop, on a loaded 2-core machine: builds nothing, starts five processes. */
const SCRIPT_DEADLINE_MS = 240_000;

/** The bash blocks of the quick start section, in order. */
function quickStartBlocks(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/cluster.md'), 'utf8');
  const start = doc.indexOf('### Quick start on one machine');
  assert.ok(start >= 0, 'docs/cluster.md has no "Quick start on one machine" section');
  const rest = doc.slice(start + 1);
  const section = rest.slice(0, rest.search(/\n#{2,3} /));
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** Fails loudly when a tool the quick start needs is missing: the test proves the doc on real services. */
function requireTool(command: string, args: string[], install: string): void {
  try {
    execFileSync(command, args, { stdio: 'pipe' });
  } catch (err) {
    assert.fail(`the cluster quick start needs \`${command}\` (${install}): ${(err as Error).message}`);
  }
}

describe("docs/cluster.md's quick start runs as pasted", () => {
  const cwd = mkdtempSync(join(tmpdir(), 'sb-cluster-quickstart-'));
  const database = `sb_quickstart_${randomBytes(6).toString('hex')}`;
  let group: number | undefined;

  before(async () => {
    requireTool('nats-server', ['--version'], 'apt-get install -y nats-server');
    requireTool('pg_isready', ['-q', '-h', '127.0.0.1'], 'PostgreSQL answering on 127.0.0.1:5432 with trust auth');
    requireTool('createdb', ['--version'], 'apt-get install -y postgresql-client');
    requireTool('openssl', ['version'], 'apt-get install -y openssl');
    requireTool('curl', ['--version'], 'apt-get install -y curl');
    await buildIfStale({ log: () => {} });
    symlinkSync(join(ROOT, 'node_modules'), join(cwd, 'node_modules'));
  });

  after(() => {
    // Whatever the script left running: its process group holds every process it started.
    if (group !== undefined) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    try {
      execFileSync('dropdb', ['--if-exists', '-h', '127.0.0.1', '-U', 'postgres', database], { stdio: 'pipe' });
    } catch {
      // nothing to drop
    }
    rmSync(cwd, { recursive: true, force: true });
  });

  /** Runs a script as one bash in its own process group; `code` is null when it outlived the deadline. */
  async function run(script: string, deadlineMs: number) {
    const child = spawn('bash', ['-c', script], {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd },
    });
    group = child.pid;
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        process.kill(-child.pid!, 'SIGKILL');
        resolve(null);
      }, deadlineMs);
      child.once('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    return { child, code, output };
  }

  it("stops at step 1 and names the port when NATS's port is taken (as by Debian's nats-server service)", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const block = quickStartBlocks()[0]!.replace(/\b4222\b/g, String(port)).replace(/\b8222\b/g, String(await freePort()));
      // Step 1 alone ends by itself: a quick "no" within the deadline, never a wait without end.
      const { code, output } = await run(block, 30_000);
      assert.notEqual(code, null, `step 1 still waited after 30 s with port ${port} taken:\n${output}`);
      assert.notEqual(code, 0, output);
      assert.match(output, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is taken`), output);
      assert.equal(existsSync(join(cwd, 'cluster-demo', 'nats')), false, 'no nats-server was started');
    } finally {
      taken.close();
      rmSync(join(cwd, 'cluster-demo'), { recursive: true, force: true });
    }
  });

  it('starts NATS, a database, the simulator, 2 runtime nodes and 2 gateways; provisions, sends through both gateways, receives, and stops cleanly', async () => {
    const ports = new Map<number, number>();
    for (const port of PORTS) ports.set(port, await freePort());
    const local = (port: (typeof PORTS)[number]) => String(ports.get(port));
    const blocks = quickStartBlocks();
    assert.equal(blocks.length, 8, 'the quick start has eight steps');
    const script = blocks
      .join('\n')
      .replace(new RegExp(`\\b(${PORTS.join('|')})\\b`, 'g'), (port) => String(ports.get(Number(port))))
      .replaceAll('switchboard_demo', database);

    const { child, code, output } = await run(script, SCRIPT_DEADLINE_MS);
    const log = (name: string) => (existsSync(join(cwd, 'cluster-demo', name)) ? readFileSync(join(cwd, 'cluster-demo', name), 'utf8') : '');
    const logs = () => ['nats.log', 'simulator.log', 'runtime-1.log', 'runtime-2.log', 'gateway-1.log', 'gateway-2.log'].map((n) => `--- ${n}\n${log(n)}`).join('\n');
    const context = `script output:\n${output}\n${logs()}`;
    assert.equal(code, 0, `the quick start did not run to its end within ${SCRIPT_DEADLINE_MS / 1000} s (exit ${code})\n${context}`);

    // Step 4: each gateway's banner names its own address, and the shared public one apart.
    assert.match(log('gateway-2.log'), new RegExp(`API:\\s+http://127\\.0\\.0\\.1:${local(3001)}/api/v1`), context);
    assert.match(log('gateway-2.log'), new RegExp(`Public:\\s+http://127\\.0\\.0\\.1:${local(3000)} `), context);
    assert.match(log('gateway-1.log'), new RegExp(`API:\\s+http://127\\.0\\.0\\.1:${local(3000)}/api/v1`), context);
    // Step 5: the pool took the numbers, and the agent was provisioned with one of them.
    assert.match(output, /"ok":true,"pool":"phone","added":3/, context);
    const agent = JSON.parse(readFileSync(join(cwd, 'cluster-demo/agent.json'), 'utf8')) as { success: boolean; channels: { sms: { address: string } } };
    assert.equal(agent.success, true, context);
    assert.match(agent.channels.sms.address, /^\+1202555010[1-3]$/);
    // Step 6: a send through each gateway reached the provider, and the inbound text waited for the agent.
    for (const port of [local(3000), local(3001)]) assert.match(output, new RegExp(`"body":"Hello through port ${port}"`), context);
    assert.equal((output.match(/"success":true,"messageId"/g) ?? []).length, 2, context);
    assert.match(output, /"reason":"agent_offline"[^\n]*"body":"Hi agent"|"body":"Hi agent"[^\n]*"reason":"agent_offline"/, context);
    // Step 7: straight to a gateway's own address, the signature (made for that URL) does not match PUBLIC_BASE_URL's.
    assert.match(output, /"status":403/, context);
    // Step 8: every process stopped by itself; the runtime nodes handed their partitions over.
    let alive = true;
    try {
      process.kill(-child.pid!, 0);
    } catch {
      alive = false;
    }
    assert.equal(alive, false, `a process of the quick start outlived its stop step\n${context}`);
    // The first node up takes every partition; the second may still be waiting for some to be handed over
    // when the quick start stops, so each node's log is checked for the lines it has.
    let acquirers = 0;
    for (const name of ['runtime-1.log', 'runtime-2.log']) {
      const lines = log(name).split('\n').filter((l) => /partition/.test(l));
      if (lines.some((l) => /partitions acquired: [\d,-]+ \(\d+\)/.test(l))) {
        acquirers++;
        assert.ok(lines.some((l) => /partitions handed over: [\d,-]+ \(\d+\)/.test(l)), `${name} handed its partitions over at the stop\n${context}`);
      }
      assert.deepEqual(lines.filter((l) => /lapsed|lost|"partition acquired"/.test(l)), [], `${name}: no lease lapsed or was lost, no line per partition`);
      assert.ok(lines.length <= 12, `${name} logs partition changes in a few summary lines, not one per partition:\n${lines.join('\n')}`);
    }
    assert.ok(acquirers >= 1, `a runtime node logs what it acquired in one line\n${context}`);
    const databases = execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-Atc', `SELECT count(*) FROM pg_database WHERE datname = '${database}'`], { encoding: 'utf8' });
    assert.equal(databases.trim(), '0', 'the stop step dropped the database');
  });
});
