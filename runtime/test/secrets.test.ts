import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AuthLockout, SecretBox, loadSecretKey } from '../src/internal.js';

describe('secrets and lockout', () => {
  it('seals and opens, and a tampered seal fails', () => {
    const box = new SecretBox(Buffer.alloc(32, 7));
    const sealed = box.seal('sb_team_secret');
    assert.ok(!sealed.includes('sb_team_secret'));
    assert.equal(box.open(sealed), 'sb_team_secret');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    assert.throws(() => box.open(parts.join('.')));
    assert.throws(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed));
  });

  it('creates the store key once, private, and reuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-key-'));
    const first = loadSecretKey(dir, '');
    assert.equal(statSync(join(dir, 'secret.key')).mode & 0o777, 0o600);
    assert.deepEqual(loadSecretKey(dir, ''), first);
    assert.equal(Buffer.from(readFileSync(join(dir, 'secret.key'), 'utf8').trim(), 'base64').length, 32);
    assert.throws(() => loadSecretKey(dir, 'too-short'), /32 bytes/);
  });

  it('locks out after the set number of failures in the window, and lets go after', () => {
    let now = 0;
    const lockout = new AuthLockout({ attempts: 3, windowMs: 1000, lockMs: 5000 }, () => now);
    lockout.fail('a');
    lockout.fail('a');
    now = 2000; // the first two fall out of the window
    lockout.fail('a');
    assert.equal(lockout.retryAfter('a'), 0);
    lockout.fail('a');
    lockout.fail('a');
    assert.equal(lockout.retryAfter('a'), 5);
    assert.equal(lockout.retryAfter('b'), 0);
    now = 7001;
    assert.equal(lockout.retryAfter('a'), 0);
  });

  it('does not count failures while locked, so a guesser cannot extend the lock', () => {
    let now = 0;
    const lockout = new AuthLockout({ attempts: 2, windowMs: 1000, lockMs: 5000 }, () => now);
    lockout.fail('a');
    lockout.fail('a');
    now = 4000;
    lockout.fail('a');
    lockout.fail('a');
    assert.equal(lockout.retryAfter('a'), 1);
    now = 5001;
    assert.equal(lockout.retryAfter('a'), 0);
  });
});
