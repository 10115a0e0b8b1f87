// Where the audio worker code is, and how many threads run it.
import { SwitchboardError } from '@switchboard/sdk';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

/** The default worker count: one core is left for the event loop. */
export function defaultAudioThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** Finds the worker entry: the tsx bootstrap under source, dist/audio/worker.js in the build. */
export function audioWorkerFile(): string {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return fileURLToPath(new URL('./worker-source.mjs', here));
  // Bundled, this code sits in dist/index.js or a dist/chunk; unbundled, next to worker.js.
  for (const candidate of ['./audio/worker.js', './worker.js']) {
    const path = fileURLToPath(new URL(candidate, here));
    if (existsSync(path)) return path;
  }
  throw new SwitchboardError('INTERNAL', `audio worker entry not found near ${here}`);
}
