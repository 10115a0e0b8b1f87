// Writer thread entry when the runtime runs from TypeScript source (tests, tsx). Node 20 does not
// run the parent's `--import tsx` in worker threads, so the thread registers tsx itself and then
// loads the real entry. The tsup build uses dist/store/writer-worker.js instead.
import { register } from 'tsx/esm/api';

register();
await import('./writer-worker.ts');
