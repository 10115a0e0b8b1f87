import { constants } from 'node:os';

/** Synchronous clean-ups that must run however the bench ends: normal exit, error, Ctrl-C, kill. */
const cleanups = new Set<() => void>();

function runAll(): void {
  for (const cleanup of [...cleanups].reverse()) {
    try {
      cleanup();
    } catch {
      // Best effort: the process is going away; the remaining clean-ups still run.
    }
  }
  cleanups.clear();
}

process.once('exit', runAll);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    runAll();
    process.exit(128 + constants.signals[signal]);
  });
}

/** Registers a synchronous clean-up for process exit; the returned function runs it now (once) instead. */
export function onExit(cleanup: () => void): () => void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    cleanups.delete(once);
    cleanup();
  };
  cleanups.add(once);
  return once;
}

/** Runs every registered clean-up now. */
export const runExitCleanups = runAll;
