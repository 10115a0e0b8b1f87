import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ErrorCodes } from '@switchboard/sdk';
import { driverSettingsName, envKeyOf, SETTING_KEYS } from '@switchboard/runtime';
import { configurationDoc } from '../../scripts/configuration-doc.js';

const PROVIDER_DOCS = new URL('../../docs/providers/', import.meta.url);

describe('documentation stays true to the code', () => {
  it('docs/configuration.md is generated from the current settings schema', () => {
    const onDisk = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    assert.equal(onDisk, configurationDoc(), 'run: node --conditions=switchboard-source --import tsx scripts/configuration-doc.ts');
  });

  it('the provider pages name only settings that exist, and link only to files that exist', async () => {
    const pages = readdirSync(PROVIDER_DOCS).filter((f) => f.endsWith('.md'));
    assert.ok(pages.includes('README.md') && pages.includes('twilio.md'));
    // DRIVER_<NAME>_<KEY> of each driver in drivers/: its settings schema's properties.
    const driverKeys = new Set<string>();
    for (const dir of readdirSync(new URL('../../drivers/', import.meta.url))) {
      const name = `@switchboard/driver-${dir}`;
      const module = (await import(name).catch(() => undefined)) as { manifest?: { settingsSchema?: { properties?: Record<string, unknown> } } } | undefined;
      for (const property of Object.keys(module?.manifest?.settingsSchema?.properties ?? {})) driverKeys.add(`DRIVER_${driverSettingsName(name)}_${envKeyOf(property)}`);
    }
    const codes = new Set(Object.values(ErrorCodes) as string[]);
    for (const page of pages) {
      const text = readFileSync(new URL(page, PROVIDER_DOCS), 'utf8');
      for (const [, token] of text.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g)) {
        if (codes.has(token!)) continue;
        const known = token!.startsWith('DRIVER_') && !SETTING_KEYS.includes(token!) ? driverKeys.has(token!) : SETTING_KEYS.includes(token!);
        assert.ok(known, `docs/providers/${page} names ${token}, which is no setting`);
      }
      for (const [, target] of text.matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        assert.ok(existsSync(new URL(target!, new URL(page, PROVIDER_DOCS))), `docs/providers/${page} links to ${target}, which does not exist`);
      }
    }
  });
});
