// npm run generate -w @switchboard/client: writes src/schema.ts from the server's current OpenAPI document.
// test/schema.test.ts fails when the committed file is not what this would write.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { currentDocument } from './document.js';
import { schemaSource } from './schema-source.js';

const target = fileURLToPath(new URL('../src/schema.ts', import.meta.url));
writeFileSync(target, await schemaSource(await currentDocument()));
console.log(`wrote ${target}`);
