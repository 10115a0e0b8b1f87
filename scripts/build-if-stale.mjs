// Builds the workspaces whose dist/ is missing or older than their sources, JavaScript only (no type
// declarations: running the server needs none; `npm run build` makes them). Used by `npm start` and by
// the `switchboard` launcher in a checkout, so a built checkout starts at once and a fresh one says
// what it is doing in two lines instead of printing the build tools' output.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Workspace folders that have a build script, from the root package.json's globs (`dir` or `dir/*`),
 * less those it excludes (`!dir`: drivers/example is a template that npm does not install either).
 */
export function buildableWorkspaces(root = ROOT) {
  const { workspaces = [] } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const excluded = new Set(workspaces.filter((pattern) => pattern.startsWith('!')).map((pattern) => pattern.slice(1)));
  const dirs = workspaces.filter((pattern) => !pattern.startsWith('!')).flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [pattern];
    const parent = pattern.slice(0, -2);
    return readdirSync(join(root, parent), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `${parent}/${d.name}`);
  });
  return dirs.filter((dir) => {
    if (excluded.has(dir)) return false;
    const file = join(root, dir, 'package.json');
    return existsSync(file) && Boolean(JSON.parse(readFileSync(file, 'utf8')).scripts?.build);
  });
}

/** Newest (or oldest) modification time of the files under `path`; undefined when there are none. */
function mtime(path, pick) {
  if (!existsSync(path)) return undefined;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let found;
  for (const name of readdirSync(path)) {
    const t = mtime(join(path, name), pick);
    if (t !== undefined) found = found === undefined ? t : pick(found, t);
  }
  return found;
}

/** Why a workspace needs building ('missing' or 'stale'), or undefined when its dist is current. */
export function staleness(dir, root = ROOT) {
  const base = join(root, dir);
  const built = mtime(join(base, 'dist'), Math.min);
  if (built === undefined) return 'missing';
  const inputs = ['src', 'package.json', 'tsconfig.json', 'index.html', 'api-docs.html', 'vite.config.js'].map((p) => mtime(join(base, p), Math.max) ?? 0);
  return Math.max(...inputs) > built ? 'stale' : undefined;
}

function tsupCli(root) {
  try {
    const require = createRequire(join(root, 'package.json'));
    const pkgPath = require.resolve('tsup/package.json');
    const bin = JSON.parse(readFileSync(pkgPath, 'utf8')).bin;
    return join(pkgPath, '..', typeof bin === 'string' ? bin : bin.tsup);
  } catch {
    return undefined;
  }
}

/** Builds one workspace: tsup without declarations, or the workspace's own build script when it is not tsup (the admin UI's Vite). */
function run(cli, cwd) {
  const script = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')).scripts.build;
  const [command, args] = script === 'tsup' ? [process.execPath, [cli, '--no-dts', '--silent']] : ['npm', ['run', 'build', '--silent']];
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (err) => resolve({ code: 1, output: `${output}${err.message}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/**
 * Builds what is missing or stale, two at a time; `log` gets one line before and one after. Resolves
 * with the workspaces built; rejects with the failing build's output.
 */
export async function buildIfStale({ root = ROOT, log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const todo = buildableWorkspaces(root)
    .map((dir) => ({ dir, why: staleness(dir, root) }))
    .filter((w) => w.why !== undefined);
  if (todo.length === 0) return [];
  const cli = tsupCli(root);
  if (!cli) {
    throw new Error(
      `${todo.map((w) => w.dir).join(', ')} need building but tsup is not installed (a production install?). ` +
        'Run `npm ci` with dev dependencies, then `npm run build`.',
    );
  }
  const first = todo.every((w) => w.why === 'missing');
  log(`Building ${todo.length} package${todo.length === 1 ? '' : 's'} (${first ? 'first start' : 'sources changed'}): ${todo.map((w) => w.dir).join(', ')} …`);
  const started = Date.now();
  const queue = [...todo];
  const failures = [];
  await Promise.all(
    [0, 1].map(async () => {
      for (let w = queue.shift(); w; w = queue.shift()) {
        const result = await run(cli, join(root, w.dir));
        if (result.code !== 0) failures.push(`${w.dir}:\n${result.output}`);
      }
    }),
  );
  if (failures.length > 0) throw new Error(`build failed in ${failures.join('\n')}`);
  log(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  return todo.map((w) => w.dir);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildIfStale().catch((err) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  });
}
