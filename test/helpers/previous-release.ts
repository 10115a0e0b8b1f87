import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The release a cluster of this one rolls from; cutting a release updates it (docs/cluster.md, "Rolling upgrades"). */
export const PREVIOUS_RELEASE_FILE = join(ROOT, 'deploy/previous-release.json');

/** The previous release, checked out beside this checkout, runnable from source with this checkout's packages. */
export interface PreviousRelease {
  readonly tag: string;
  readonly commit: string;
  /** How it was found: the tag, or the recorded commit (a clone carries no tags). */
  readonly ref: string;
  /** Its work tree (a detached git worktree of this repository). */
  readonly dir: string;
  /** Removes the work tree and prunes git's record of it. */
  remove(): void;
}

const git = (...args: string[]) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const resolves = (ref: string) => {
  try {
    return git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
  } catch {
    return undefined;
  }
};

/**
 * Checks out the release named by deploy/previous-release.json (its tag when this clone has it, else its
 * commit) into a temporary git worktree, and gives it a node_modules of links: third-party packages are
 * this checkout's, the `@switchboard/*` workspaces are the worktree's own, so its processes run its code
 * from source (`--conditions=switchboard-source --import tsx`) with no install or build. Throws, saying
 * what to do, when the release is not in this clone: a rolling-upgrade test never skips.
 */
export function checkOutPreviousRelease(): PreviousRelease {
  const { tag, commit } = JSON.parse(readFileSync(PREVIOUS_RELEASE_FILE, 'utf8')) as { tag: string; commit: string };
  const tagged = resolves(`refs/tags/${tag}`);
  if (tagged && tagged !== commit) {
    throw new Error(`The tag ${tag} names ${tagged}, but ${relative(ROOT, PREVIOUS_RELEASE_FILE)} names ${commit}: make them agree (the file is what a clone without tags uses).`);
  }
  if (!tagged && !resolves(commit)) {
    throw new Error(
      `The previous release ${tag} (${commit}, from ${relative(ROOT, PREVIOUS_RELEASE_FILE)}) is not in this clone, so the rolling upgrade from it cannot be tested. ` +
        `Clone with full history (a shallow clone lacks it: \`git fetch --unshallow\`), or fetch the tag (\`git fetch origin tag ${tag}\`).`,
    );
  }
  const ref = tagged ? tag : commit;
  const parent = mkdtempSync(join(tmpdir(), 'sb-previous-release-'));
  const dir = join(parent, tag);
  git('worktree', 'add', '--detach', dir, ref);
  const release: PreviousRelease = {
    tag,
    commit,
    ref,
    dir: realpathSync(dir),
    remove() {
      // The links first, so nothing below follows them into this checkout's node_modules.
      for (const link of linkedModules(dir)) rmSync(link, { recursive: true, force: true });
      try {
        git('worktree', 'remove', '--force', dir);
      } finally {
        git('worktree', 'prune');
        rmSync(parent, { recursive: true, force: true });
      }
    },
  };
  try {
    linkModules(release.dir);
  } catch (err) {
    release.remove();
    throw err;
  }
  return release;
}

/** This checkout's workspaces, as the links npm made in node_modules/@switchboard name them (`../../runtime`). */
function workspaceLinks(): Map<string, string> {
  const scope = join(ROOT, 'node_modules/@switchboard');
  return new Map(readdirSync(scope).map((name) => [name, readlinkSync(join(scope, name))]));
}

function linkModules(dir: string): void {
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@switchboard'), { recursive: true });
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name !== '@switchboard') symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  }
  // The same relative links as npm's, so they land in the worktree's packages; a workspace it lacks is left out.
  for (const [name, target] of workspaceLinks()) {
    const at = join(modules, '@switchboard', name);
    if (existsSync(resolve(dirname(at), target))) symlinkSync(target, at);
  }
  // A workspace's own node_modules (a dependency at a version the root's does not hold).
  for (const target of workspaceLinks().values()) {
    const workspace = resolve(join(ROOT, 'node_modules/@switchboard'), target);
    const own = join(workspace, 'node_modules');
    const there = join(dir, relative(ROOT, workspace));
    if (!existsSync(own) || !existsSync(there) || existsSync(join(there, 'node_modules'))) continue;
    if (existsSync(join(own, '@switchboard'))) throw new Error(`${own} links workspaces of its own; linking it into the previous release would run this checkout's code there.`);
    symlinkSync(own, join(there, 'node_modules'));
  }
}

/** The links linkModules made. */
function linkedModules(dir: string): string[] {
  const links = [join(dir, 'node_modules')];
  for (const target of workspaceLinks().values()) links.push(join(dir, relative(ROOT, resolve(join(ROOT, 'node_modules/@switchboard'), target)), 'node_modules'));
  return links.filter((l) => {
    try {
      return lstatSync(l) !== undefined;
    } catch {
      return false;
    }
  });
}
