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
    assert.throws(() => loadSettings({ envFile: file }), /Unknown setting PORTT/);
  });

  it('refuses a missing env file that was asked for explicitly', () => {
    assert.throws(() => loadSettings({ envFile: '/nonexistent/.env', requireEnvFile: true }), /does not exist/);
  });

  it('marks secrets so they are never shown', () => {
    for (const key of ['ORCHESTRATOR_TOKEN', 'TWILIO_AUTH_TOKEN', 'RESEND_API_KEY', 'SECRET_KEY']) assert.ok(SECRET_SETTINGS.has(key), key);
    assert.ok(!SECRET_SETTINGS.has('PORT'));
  });
});
