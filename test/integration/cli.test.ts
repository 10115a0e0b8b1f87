// The CLI's answers that start no server: help, the version and mistakes on the command line. They must
// come without loading the runtime (the store, the drivers and their vendor SDKs take seconds to load)
// and, through the launcher in a checkout, without building anything.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { buildableWorkspaces } from '../../scripts/build-if-stale.mjs';
import { eventually } from '@switchboard/runtime/testing';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECORD = fileURLToPath(new URL('../helpers/record-imports.mjs', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'gateway/package.json'), 'utf8')) as { version: string }).version;
const temps: string[] = [];

interface Answer {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Module URLs the process resolved. */
  readonly loaded: string[];
}

/** Runs `node <nodeArgs> <script> <args>` recording what it loads. */
function node(nodeArgs: string[], script: string, args: string[], cwd = ROOT): Answer {
  const dir = mkdtempSync(join(tmpdir(), 'sb-cli-'));
  temps.push(dir);
  const log = join(dir, 'imports.log');
  const r = spawnSync(process.execPath, [...nodeArgs, '--import', RECORD, script, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), SWITCHBOARD_IMPORT_LOG: log },
  });
  const loaded = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, loaded };
}

/** The CLI from source, as the tests run it. */
const cli = (...args: string[]) => node(['--conditions=switchboard-source', '--import', 'tsx'], 'gateway/src/cli.ts', args);

function assertRuntimeNotLoaded(answer: Answer): void {
  assert.ok(answer.loaded.length > 0, 'the import recorder saw nothing');
  const heavy = answer.loaded.filter((url) => /\/runtime\/|\/drivers\/|sqlite3|uWebSockets|uws/.test(url));
  assert.deepEqual(heavy, [], 'the runtime was loaded to answer');
}

after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe('switchboard CLI without a server', () => {
  it('--version and -v print the version alone, without loading the runtime', () => {
    for (const flag of ['--version', '-v']) {
      const r = cli(flag);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, `${VERSION}\n`);
      assertRuntimeNotLoaded(r);
    }
  });

  it('--help and -h print the usage, without loading the runtime', () => {
    for (const args of [['--help'], ['-h'], ['start', '--help']]) {
      const r = cli(...args);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^Usage: switchboard \[start \| gateway \| runtime \| token reset(?: \| [a-z]+)*\] \[options\]/);
      for (const command of ['backup', 'restore', 'tail']) assert.match(r.stdout, new RegExp(`^  ${command} `, 'm'), `--help does not list ${command}`);
      assertRuntimeNotLoaded(r);
    }
  });

  it('an unknown command is named as unknown on stderr, exit 2, without loading the runtime', () => {
    const r = cli('strat');
    assert.equal(r.status, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^switchboard: unknown command 'strat' \(the commands are start, gateway, runtime, token(?:, [a-z]+)*\)\nRun `switchboard --help` for the commands and options\.\n$/);
    assert.match(r.stderr, /backup, restore/);
    assertRuntimeNotLoaded(r);
  });

  it("an unknown flag, a flag without its value and a stray argument get one line each, not Node's parse error", () => {
    const cases: [string[], string][] = [
      [['--prot', '8080'], 'unknown option --prot'],
      [['start', '-x'], 'unknown option -x'],
      [['start', '--port'], 'option --port needs a value'],
      [['--help=yes'], 'option --help takes no value'],
      [['start', 'now'], "unexpected argument 'now' after 'start'"],
      [['backup', '--data-dir', 'data'], "'backup' needs --to <file>: the backup file to write"],
      [['restore', '--from', 'b.tar.gz'], "'restore' needs --from <file> and --data-dir <dir>: the backup, and the data dir to restore into"],
      [['tail', '--token', 'x'], "'tail' needs --agent <agentId>: the agent whose inbox to follow"],
    ];
    for (const [args, message] of cases) {
      const r = cli(...args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr, `switchboard: ${message}\nRun \`switchboard --help\` for the commands and options.\n`);
      assert.doesNotMatch(r.stderr, /positional|ERR_PARSE_ARGS/);
      assertRuntimeNotLoaded(r);
    }
  });
});

describe('the switchboard launcher in a checkout', () => {
  /** A copy of the checkout's launcher, build script and gateway (built), with drivers/example unbuilt. */
  function copyOfCheckout(): string {
    const root = mkdtempSync(join(tmpdir(), 'sb-checkout-'));
    temps.push(root);
    for (const path of ['package.json', 'tsconfig.base.json', 'scripts']) cpSync(join(ROOT, path), join(root, path), { recursive: true });
    // Sources first, then dist, so the copy's dist is newer than its sources: a built checkout.
    for (const path of ['package.json', 'tsconfig.json', 'src', 'bin', 'dist']) cpSync(join(ROOT, 'gateway', path), join(root, 'gateway', path), { recursive: true });
    mkdirSync(join(root, 'drivers'));
    for (const path of ['package.json', 'tsconfig.json', 'src']) cpSync(join(ROOT, 'drivers/example', path), join(root, 'drivers/example', path), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
    return root;
  }

  it('--help and --version build nothing, write no drivers/example/dist and load no runtime', () => {
    const root = copyOfCheckout();
    for (const flag of ['--help', '--version']) {
      const r = node([], join(root, 'gateway/bin/switchboard.js'), [flag], root);
      assert.equal(r.status, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /Building/);
      assert.equal(r.stdout.length > 0, true);
      assertRuntimeNotLoaded(r);
    }
    assert.ok(!existsSync(join(root, 'drivers/example/dist')), 'the launcher built drivers/example');
  });

  it('the stale check leaves out the workspaces the root package.json excludes', () => {
    const root = copyOfCheckout();
    assert.deepEqual(buildableWorkspaces(root), ['gateway']);
    assert.ok(buildableWorkspaces().includes('drivers/twilio'));
    assert.ok(!buildableWorkspaces().includes('drivers/example'));
  });
});

describe('log lines on a terminal', { skip: spawnSync('script', ['--version']).status !== 0 ? 'no script(1) to make a terminal' : false }, () => {
  /** `switchboard start` on a pseudo-terminal (script(1)); resolves with what it printed up to its banner. */
  async function startOnTerminal(env: Record<string, string>): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'sb-tty-'));
    temps.push(dir);
    const command = `${process.execPath} --conditions=switchboard-source --import tsx gateway/src/cli.ts start --port 0 --data-dir ${join(dir, 'data')}`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), LOG_LEVEL: 'info', HTTP_ADAPTER: process.env.SWITCHBOARD_HTTP_ADAPTER ?? 'auto', ...env },
    });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await eventually(() => child.exitCode !== null || /API:\s+http/.test(output), { timeoutMs: 120_000, intervalMs: 50, message: () => `the banner:\n${output}` });
      if (!/API:\s+http/.test(output)) throw new Error(`no banner:\n${output}`);
      return output;
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  }

  const logLines = (output: string) => output.split(/\r?\n/).filter((line) => line.includes('start-up: store open'));

  it('are readable by default, and JSON with LOG_FORMAT=json', async () => {
    const readable = logLines(await startOnTerminal({}));
    assert.equal(readable.length, 1, 'no store line');
    assert.match(readable[0]!, /^\[\d\d:\d\d:\d\d\.\d{3}\] .*INFO.*start-up: store open and migrated/);

    const json = logLines(await startOnTerminal({ LOG_FORMAT: 'json' }));
    assert.equal(json.length, 1, 'no store line');
    assert.equal((JSON.parse(json[0]!) as { msg: string }).msg, 'start-up: store open and migrated');
  });
});
