// `npm start`: builds only what is missing or stale, then runs `switchboard start` in this process.
// Arguments after `npm start --` go to the CLI (`npm start -- --port 8080`).
import { buildIfStale } from './build-if-stale.mjs';

try {
  await buildIfStale();
} catch (err) {
  process.stderr.write(`switchboard: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
await import('../gateway/dist/cli.js');
