#!/usr/bin/env node
// Runs the smoke test (test/smoke/smoke.mjs, against the built dist) under other Node majors.
// Each runtime comes from the npm registry: the `node-<platform>-<arch>@<major>` package holds a
// real Node binary; it is installed once into a cache dir (no system change, nothing saved).
// Usage: npm run smoke:node -- [22] [24] [current] [--expect-adapter uws|node]
//   (default: 22 24). SWITCHBOARD_NODE_CACHE sets the cache dir (default: <tmp>/switchboard-node-runtimes).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'expect-adapter': { type: 'string' } } });
const majors = positionals.length > 0 ? positionals : ['22', '24'];
const cache = process.env.SWITCHBOARD_NODE_CACHE ?? join(tmpdir(), 'switchboard-node-runtimes');
const platform = process.platform === 'win32' ? 'win' : process.platform;
const pkg = `node-${platform}-${process.arch}`;

if (!existsSync(join(root, 'gateway/dist/cli.js'))) {
  console.error('smoke:node needs the built server: run `npm run build` first.');
  process.exit(1);
}

/** The path of a Node binary of this major, installed from the registry when not cached. */
function nodeBinary(major) {
  if (major === 'current') return process.execPath;
  if (!/^\d+$/.test(major)) throw new Error(`"${major}" is not a Node major version (try 22 or 24).`);
  const prefix = join(cache, major);
  const bin = join(prefix, 'node_modules', pkg, 'bin', platform === 'win' ? 'node.exe' : 'node');
  if (!existsSync(bin)) {
    console.log(`smoke:node: installing ${pkg}@${major} into ${prefix}`);
    const npm = spawnSync('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', prefix, `${pkg}@${major}`], {
      stdio: 'inherit',
      shell: platform === 'win',
    });
    if (npm.status !== 0 || !existsSync(bin)) throw new Error(`npm could not install ${pkg}@${major} (exit ${npm.status}).`);
  }
  return bin;
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
