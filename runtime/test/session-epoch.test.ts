import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SecretBox, SessionEpoch, hashToken, openStore, type Store } from '../src/internal.js';

describe('SessionEpoch', () => {
  let dir: string;
  let store: Store;
  const box = new SecretBox(Buffer.alloc(32, 3));
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-epoch-'));
    store = await openStore({ dataDir: dir });
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds across instances on one store; a new token starts a new epoch, the same one does not', async () => {
    const first = new SessionEpoch(store.settings, box, 60_000);
    await first.init(hashToken('one'));
    const epoch = await first.current();
    const again = new SessionEpoch(store.settings, box, 60_000);
    await again.init(hashToken('one'));
    assert.equal(await again.current(), epoch, 'a restart with the same token keeps the sessions');
    const rotated = new SessionEpoch(store.settings, box, 60_000);
    await rotated.init(hashToken('two'));
    assert.notEqual(await rotated.current(), epoch);
  });

  it('an advance is seen at once here and once the cached epoch is older than maxAgeMs elsewhere', async () => {
    let now = 0;
    const here = new SessionEpoch(store.settings, box, 2000, () => now);
    const there = new SessionEpoch(store.settings, box, 2000, () => now);
    await here.init(hashToken('two'));
    await there.init(hashToken('two'));
    const before = await there.current();
    assert.equal(await here.current(), before);
    await here.advance();
    const after = await here.current();
    assert.notEqual(after, before, 'at once where it moved');
    now = 1999;
    assert.equal(await there.current(), before, 'still cached');
    now = 2000;
    assert.equal(await there.current(), after);
  });
});
