// A Node binary of another major, for what must run under it (the smoke test, the MCP conformance
// suite), and tools that need it (the MCP Inspector). Each comes from the npm registry: the
// `node-<platform>-<arch>@<major>` package holds a real Node binary; each is installed once into a
// cache dir (no system change, nothing saved in the project).
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
  const prefix = installed(`${pkg}@${major}`, major);
  return join(prefix, 'node_modules', pkg, 'bin', platform === 'win' ? 'node.exe' : 'node');
}

/**
 * The directory of an npm package at an exact version (`name@version`), installed with its
 * dependencies into the cache when not there yet; its files are under `<dir>/node_modules/<name>`.
 */
export function npmPackage(spec) {
  if (!/^(@[\w.-]+\/)?[\w.-]+@\d+\.\d+\.\d+$/.test(spec)) throw new Error(`"${spec}" is not name@exact-version.`);
  return installed(spec, spec.replace(/[@/]/g, '_'));
}

/** Installs `spec` into `<cache>/<dir>` unless a finished install is there; returns that prefix. */
function installed(spec, dir) {
  const cache = process.env.SWITCHBOARD_NODE_CACHE ?? join(tmpdir(), 'switchboard-node-runtimes');
  const prefix = join(cache, dir);
  const name = spec.slice(0, spec.lastIndexOf('@'));
  if (existsSync(join(prefix, 'node_modules', name, 'package.json'))) return prefix;
  console.log(`node-runtime: installing ${spec} into ${prefix}`);
  const npm = spawnSync('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', prefix, spec], {
    stdio: ['ignore', 'inherit', 'inherit'],
    shell: platform === 'win',
  });
  if (npm.status !== 0 || !existsSync(join(prefix, 'node_modules', name, 'package.json'))) throw new Error(`npm could not install ${spec} (exit ${npm.status}).`);
  return prefix;
}
