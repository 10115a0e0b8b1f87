#!/usr/bin/env node
// The `switchboard` command. This file is committed (dist/ is not), so npm links the bin at install
// time. In a Switchboard checkout it first builds what is missing or stale (two lines of progress,
// nothing when current); an installed package already carries dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
const builder = new URL('../../scripts/build-if-stale.mjs', import.meta.url);

// Help and the version are answered by whatever CLI is built: asking for them writes nothing into a
// built checkout, stale or not.
const answersOnly = process.argv.slice(2).some((arg) => ['-h', '--help', '-v', '--version'].includes(arg));

try {
  if (!(answersOnly && existsSync(fileURLToPath(cli))) && existsSync(fileURLToPath(new URL('../src', import.meta.url))) && existsSync(fileURLToPath(builder))) {
    const { buildIfStale } = await import(builder.href);
    await buildIfStale();
  }
  if (!existsSync(fileURLToPath(cli))) {
    throw new Error(`${fileURLToPath(cli)} is missing: the gateway is not built. Run \`npm run build\` in the Switchboard checkout.`);
  }
} catch (err) {
  process.stderr.write(`switchboard: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
await import(cli.href);
