import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { configurationDoc } from '../../scripts/configuration-doc.js';

describe('documentation stays true to the code', () => {
  it('docs/configuration.md is generated from the current settings schema', () => {
    const onDisk = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    assert.equal(onDisk, configurationDoc(), 'run: node --conditions=switchboard-source --import tsx scripts/configuration-doc.ts');
  });
});
