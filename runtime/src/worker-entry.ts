import { SwitchboardError } from '@switchboard/sdk';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Finds a worker thread's entry file from the module at `here` (an `import.meta.url`): under source
 * (tsx) the `.mjs` shim next to it, which registers tsx in the thread; in the build the first of
 * `built` that exists (bundled, the caller sits in dist/index.js or a dist chunk; unbundled, next to
 * the entry).
 */
export function workerEntry(here: string, sourceShim: string, built: readonly string[]): string {
  if (here.endsWith('.ts')) return fileURLToPath(new URL(sourceShim, here));
  for (const candidate of built) {
    const path = fileURLToPath(new URL(candidate, here));
    if (existsSync(path)) return path;
  }
  throw new SwitchboardError('INTERNAL', `worker entry ${built[0]} not found near ${here}`);
}
