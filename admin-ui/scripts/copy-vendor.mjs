// Swagger UI ships as a prebuilt bundle; copying it beside the build keeps the build fast.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const from = dirname(require.resolve('swagger-ui-dist/package.json'));
const to = new URL('../dist/vendor/', import.meta.url).pathname;
mkdirSync(to, { recursive: true });
for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE']) copyFileSync(join(from, file), join(to, file === 'LICENSE' ? 'swagger-ui-LICENSE.txt' : file));
