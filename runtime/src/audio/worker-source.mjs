// Worker entry when the runtime runs from TypeScript source (tests, tsx). Node 20 does not run
// the parent's `--import tsx` in worker threads, so the worker registers tsx itself and then
// loads the real entry. The tsup build uses dist/audio/worker.js instead and never loads this.
import { register } from 'tsx/esm/api';

register();
const worker = await import('./worker.ts');

export const decodeFrames = worker.decodeFrames;
export const encodeReply = worker.encodeReply;
