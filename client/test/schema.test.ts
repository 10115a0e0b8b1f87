import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { currentDocument } from '../scripts/document.js';
import { schemaSource } from '../scripts/schema-source.js';

it("the committed src/schema.ts is what openapi-typescript makes of the server's current OpenAPI document", async () => {
  const committed = readFileSync(new URL('../src/schema.ts', import.meta.url), 'utf8');
  const current = await schemaSource(await currentDocument());
  // assert.equal would print two 10,000-line strings: name the first line that differs instead.
  if (committed === current) return;
  const a = committed.split('\n');
  const b = current.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  assert.fail(
    `client/src/schema.ts is stale: run \`npm run generate -w @switchboard/client\` and commit it. ` +
      `First difference at line ${line + 1}:\n  committed: ${a[line] ?? '(end of file)'}\n  current:   ${b[line] ?? '(end of file)'}`,
  );
});
