import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { storedReads, type StoredReads } from '../src/roles/stored-reads.js';
import { openStore, type Store } from '../src/store/store.js';

describe('stored reads (what tests see of a role’s store)', () => {
  let dir: string;
  let store: Store;
  let reads: StoredReads;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-stored-reads-'));
    store = await openStore({ dataDir: dir });
    reads = storedReads(store);
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers SELECTs and named reads', async () => {
    assert.deepEqual(await reads.rows<{ n: number }>('SELECT 1 AS n'), [{ n: 1 }]);
    assert.deepEqual(await reads.row<{ n: number }>('  select COUNT(*) AS n FROM agents'), { n: 0 });
    assert.equal(await reads.agent('nobody'), undefined);
    assert.equal(await reads.waitingLetters('nobody'), 0);
  });

  it('refuses anything but a SELECT, and leaves the store as it was', async () => {
    for (const sql of ['DELETE FROM agents', "UPDATE settings SET value = 'x'", 'WITH x AS (SELECT 1) DELETE FROM agents']) {
      await assert.rejects(reads.rows(sql), (err: { code?: string }) => err.code === 'BAD_REQUEST', sql);
      await assert.rejects(reads.row(sql), (err: { code?: string }) => err.code === 'BAD_REQUEST', sql);
    }
    assert.deepEqual(await reads.row<{ n: number }>('SELECT COUNT(*) AS n FROM agents'), { n: 0 });
  });
});
