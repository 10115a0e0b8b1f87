#!/usr/bin/env node
// Runs every *.test.ts under the workspaces with node:test through tsx.
// Node 20's test runner takes no globs, so the files are listed here.
// Usage: npm test [-- <path filter>...]
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const roots = ['sdk', 'runtime', 'gateway', 'drivers', 'simulator', 'admin-ui', 'test'];
const skip = new Set(['node_modules', 'dist', 'bench', 'data']);

function collect(dir, out) {
  for (const name of readdirSync(dir)) {
    if (skip.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const filters = process.argv.slice(2);
const files = roots
  .flatMap((r) => collect(join(root, r), []))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error(`No test files match ${filters.join(' ') || 'the workspaces'}.`);
  process.exit(1);
}
// A test may take three minutes at most; a file whose tests are done exits even if it leaked a handle,
// and the whole run is stopped after WATCHDOG_MINUTES, so a hang fails CI instead of stalling it.
const args = [
  '--conditions=switchboard-source',
  '--import',
  'tsx',
  '--test',
  '--test-reporter=spec',
  '--test-timeout=180000',
  '--test-force-exit',
  ...files,
];
const WATCHDOG_MINUTES = Number(process.env.TEST_WATCHDOG_MINUTES ?? 30);
const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' }, detached: true });
const watchdog = setTimeout(() => {
  console.error(`\nThe test run passed ${WATCHDOG_MINUTES} minutes and was stopped: a test or a leaked handle hangs.`);
  process.kill(-child.pid, 'SIGKILL');
  process.exit(1);
}, WATCHDOG_MINUTES * 60_000);
watchdog.unref();
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.kill(-child.pid, signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
