// A Node binary of another major, for what must run under it (the smoke test, the MCP conformance
// suite). Each runtime comes from the npm registry: the `node-<platform>-<arch>@<major>` package
// holds a real Node binary; it is installed once into a cache dir (no system change, nothing saved).
// SWITCHBOARD_NODE_CACHE sets the cache dir (default: <tmp>/switchboard-node-runtimes).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const platform = process.platform === 'win32' ? 'win' : process.platform;
const pkg = `node-${platform}-${process.arch}`;

/** The path of a Node binary of this major (`current` is this process's), installed from the registry when not cached. */
export function nodeBinary(major) {
  if (major === 'current') return process.execPath;
  if (!/^\d+$/.test(major)) throw new Error(`"${major}" is not a Node major version (try 22 or 24).`);
  const cache = process.env.SWITCHBOARD_NODE_CACHE ?? join(tmpdir(), 'switchboard-node-runtimes');
  const prefix = join(cache, major);
  const bin = join(prefix, 'node_modules', pkg, 'bin', platform === 'win' ? 'node.exe' : 'node');
  if (!existsSync(bin)) {
    console.log(`node-runtime: installing ${pkg}@${major} into ${prefix}`);
    const npm = spawnSync('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', prefix, `${pkg}@${major}`], {
      stdio: ['ignore', 'inherit', 'inherit'],
      shell: platform === 'win',
    });
    if (npm.status !== 0 || !existsSync(bin)) throw new Error(`npm could not install ${pkg}@${major} (exit ${npm.status}).`);
  }
  return bin;
}
