// `npm start`: builds only what is missing or stale, then runs `switchboard start` in this process.
// Arguments after `npm start --` go to the CLI (`npm start -- --port 8080`); `--help` and `--version`
// are answered by the CLI as built, without building.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from './build-if-stale.mjs';

const cli = new URL('../gateway/dist/cli.js', import.meta.url);
const answersOnly = process.argv.slice(2).some((arg) => ['-h', '--help', '-v', '--version'].includes(arg));

try {
  if (!(answersOnly && existsSync(fileURLToPath(cli)))) await buildIfStale();
} catch (err) {
  process.stderr.write(`switchboard: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
await import(cli.href);
