import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadSettings, SETTING_KEYS } from '@switchboard/runtime';
import { envExample } from '../../scripts/env-example.js';

const onDisk = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');

describe('.env.example', () => {
  it('is generated from the current settings schema', () => {
    assert.equal(onDisk, envExample(), 'run: node --conditions=switchboard-source --import tsx scripts/env-example.ts');
  });

  it('names every setting once, and its values, uncommented, are the defaults the schema applies', () => {
    const lines = onDisk.split('\n').filter((l) => /^# [A-Z][A-Z0-9_]*=/.test(l));
    assert.deepEqual(lines.map((l) => l.slice(2, l.indexOf('='))), [...SETTING_KEYS]);
    const dir = mkdtempSync(join(tmpdir(), 'sb-env-example-'));
    try {
      const file = join(dir, '.env');
      writeFileSync(file, lines.map((l) => l.slice(2)).join('\n') + '\n');
      assert.deepEqual({ ...loadSettings({ envFile: file, requireEnvFile: true }) }, { ...loadSettings({}) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
