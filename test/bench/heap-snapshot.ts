import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** NODE_OPTIONS for a server child that writes a heap snapshot into `dir` on SIGUSR2 (see heapSnapshot). */
export function heapSnapshotOptions(dir: string): string {
  return `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${dir}`;
}

/**
 * Has the server (started with heapSnapshotOptions) write a heap snapshot into `dir`; resolves with
 * its path once it is written. Summarise one with `node scripts/heapsnapshot-top.mjs <file>`.
 */
export async function heapSnapshot(pid: number, origin: string, dir: string, log: (message: string) => void): Promise<string> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  for (let size = -1; ; ) {
    await new Promise((r) => setTimeout(r, 1_000));
    const file = readdirSync(dir).find((name) => !before.has(name) && name.endsWith('.heapsnapshot'));
    if (!file) continue;
    // The server takes and writes it on its main thread: once it answers again and the file has stopped growing, it is done.
    const answers = await fetch(`${origin}/health`).then((res) => res.ok, () => false);
    const now = statSync(join(dir, file)).size;
    if (answers && now > 0 && now === size) {
      log(`heap snapshot ${join(dir, file)} (${(now / 1024 / 1024).toFixed(0)} MB)`);
      return join(dir, file);
    }
    size = now;
  }
}
