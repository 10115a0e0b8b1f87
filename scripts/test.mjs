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
const args = ['--conditions=switchboard-source', '--import', 'tsx', '--test', '--test-reporter=spec', ...files];
const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
