import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hasErrorCode } from '@switchboard/sdk';
import { loadSettings, SECRET_SETTINGS } from '../src/internal.js';

describe('settings', () => {
  it('applies defaults and freezes the result', () => {
    const settings = loadSettings({ env: {} });
    assert.equal(settings.PORT, 3000);
    assert.equal(settings.DATA_DIR, './data');
    assert.equal(settings.DEMO_MODE, 'auto');
    assert.ok(Object.isFrozen(settings));
  });

  it('reads the env file, lets the environment override it, and coerces numbers', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-settings-'));
    const file = join(dir, '.env');
    writeFileSync(file, 'PORT=4100\nLOG_LEVEL=debug\n# a comment\nEMAIL_DOMAIN=mail.example.com\n');
    const settings = loadSettings({ envFile: file, env: { PORT: '4200', PATH: '/usr/bin' } });
    assert.equal(settings.PORT, 4200);
    assert.equal(settings.LOG_LEVEL, 'debug');
    assert.equal(settings.EMAIL_DOMAIN, 'mail.example.com');
  });

  it('stops on a bad value with a message naming the key and what is allowed', () => {
    assert.throws(
      () => loadSettings({ env: { PORT: 'eighty' } }),
      (err: unknown) => hasErrorCode(err, "VALIDATION_FAILED") && /Setting PORT/.test(err.message),
    );
    assert.throws(
      () => loadSettings({ env: { LOG_LEVEL: 'loud' } }),
      (err: unknown) => /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/.test((err as Error).message),
    );
    assert.throws(() => loadSettings({ env: { TWILIO_ACCOUNT_SID: 'nope' } }), /TWILIO_ACCOUNT_SID/);
  });

  it('stops on an unknown key in the env file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-settings-'));
    const file = join(dir, '.env');
    writeFileSync(file, 'PORTT=4100\n');
    assert.throws(() => loadSettings({ envFile: file }), /Setting PORTT is not a known setting \(in .*\.env; known settings are listed in docs\/configuration\.md\)\.$/);
  });

  it('names every bad setting at once: unknown keys, bad values and a SECRET_KEY that is not 32 bytes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-settings-'));
    const file = join(dir, 'cluster.env');
    // What a quoted heredoc of docs/cluster.md's first version left in the file.
    writeFileSync(file, 'SECRET_KEY=<openssl rand -hex 32>\nTWILIO_ACCOUNT_SID=AC…\nPORTT=1\n');
    assert.throws(
      () => loadSettings({ envFile: file, env: { PORT: 'eighty' } }),
      (err: unknown) => {
        const { message, details } = err as Error & { details: { key: string }[] };
        assert.ok(hasErrorCode(err, 'VALIDATION_FAILED'));
        assert.deepEqual(details.map((d) => d.key).sort(), ['PORT', 'PORTT', 'SECRET_KEY', 'TWILIO_ACCOUNT_SID']);
        assert.match(message, /^4 settings are not valid:\n/);
        for (const key of ['PORT', 'PORTT', 'SECRET_KEY', 'TWILIO_ACCOUNT_SID']) assert.match(message, new RegExp(`^  - ${key} `, 'm'));
        return true;
      },
    );
    assert.doesNotThrow(() => loadSettings({ env: { SECRET_KEY: 'ab'.repeat(32) } }));
    assert.doesNotThrow(() => loadSettings({ env: { SECRET_KEY: Buffer.alloc(32, 7).toString('base64') } }));
  });

  it('wraps a description in parentheses without its full stop (no "..)")', () => {
    assert.throws(
      () => loadSettings({ env: { PORT: 'eighty' } }),
      (err: unknown) => {
        assert.equal((err as Error).message, 'Setting PORT must be integer (TCP port; 0 picks a free one).');
        return true;
      },
    );
  });

  it('refuses a missing env file that was asked for explicitly', () => {
    assert.throws(() => loadSettings({ envFile: '/nonexistent/.env', requireEnvFile: true }), /does not exist/);
  });

  it('marks secrets so they are never shown', () => {
    for (const key of ['ORCHESTRATOR_TOKEN', 'TWILIO_AUTH_TOKEN', 'RESEND_API_KEY', 'SECRET_KEY']) assert.ok(SECRET_SETTINGS.has(key), key);
    assert.ok(!SECRET_SETTINGS.has('PORT'));
  });
});
