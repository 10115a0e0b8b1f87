// Where the audio worker code is, and how many threads run it.
import { availableParallelism } from 'node:os';
import { workerEntry } from '../worker-entry.js';

/** The default worker count: one core is left for the event loop. */
export function defaultAudioThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** Finds the worker entry: the tsx bootstrap under source, dist/audio/worker.js in the build. */
export function audioWorkerFile(): string {
  return workerEntry(import.meta.url, './worker-source.mjs', ['./audio/worker.js', './worker.js']);
}
