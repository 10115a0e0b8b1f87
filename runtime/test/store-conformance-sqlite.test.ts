import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../src/internal.js';
import { describeDatabaseConformance } from '../src/testing/index.js';

describeDatabaseConformance('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-conf-'));
  return {
    connect: () => openSqlite({ filename: join(dir, 'switchboard.db') }),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
});
