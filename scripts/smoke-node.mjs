#!/usr/bin/env node
// Runs the smoke test (test/smoke/smoke.mjs, against the built dist) under other Node majors,
// each from the npm registry (scripts/node-runtime.mjs).
// Usage: npm run smoke:node -- [22] [24] [current] [--expect-adapter uws|node]
//   (default: 22 24). SWITCHBOARD_NODE_CACHE sets the cache dir (default: <tmp>/switchboard-node-runtimes).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { nodeBinary } from './node-runtime.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'expect-adapter': { type: 'string' } } });
const majors = positionals.length > 0 ? positionals : ['22', '24'];

if (!existsSync(join(root, 'gateway/dist/cli.js'))) {
  console.error('smoke:node needs the built server: run `npm run build` first.');
  process.exit(1);
}

let failed = 0;
for (const major of majors) {
  const bin = nodeBinary(major);
  const version = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`\nsmoke:node: ${version} (${bin})`);
  const args = [join(root, 'test/smoke/smoke.mjs')];
  if (values['expect-adapter']) args.push('--expect-adapter', values['expect-adapter']);
  const run = spawnSync(bin, args, { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) {
    failed++;
    console.error(`smoke:node: FAILED on ${version}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
