import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defineDriver, ErrorCodes, SDK_VERSION, type Channel, type Driver, type DriverContext, type DriverManifest, type SpeechCapability } from '@switchboard/sdk';
import { DriverSet, driverSettingsName, driverSpecs, loadDriver, parseDriverList, settingsFromEnv } from '../../src/internal.js';
import { isDemoMode } from '../../src/modes.js';
import { loadSettings } from '../../src/settings/load.js';

const context: DriverContext = { logger: { debug() {}, info() {}, warn() {}, error() {} }, publicBaseUrl: 'http://127.0.0.1:1' };

const schema = {
  type: 'object',
  required: ['apiKey'],
  additionalProperties: false,
  properties: { apiKey: { type: 'string', minLength: 4 }, retries: { type: 'integer' }, sandbox: { type: 'boolean' }, numbers: { type: 'array', items: { type: 'string' } } },
};

function manifest(name: string, channels: Channel[], speech?: SpeechCapability[], sdk = '^0.1.0'): DriverManifest {
  return { name, version: '1.0.0', provider: name.replace(/^.*-/, ''), sdk, channels, ...(speech ? { speech } : {}), settingsSchema: schema };
}

/** A module whose created driver offers exactly what `offer` says, and records its settings. */
function module(m: DriverManifest, offer: Partial<Driver> = {}, seen: Record<string, unknown>[] = []) {
  return defineDriver<Record<string, unknown>>(m, (settings) => {
    seen.push(settings);
    return { manifest: m, ...offer };
  });
}

const tts = { synthesize: async () => ({ audio: Buffer.alloc(0), format: 'ulaw_8000' as const, sampleRate: 8000 }), voices: async () => [] };

async function expectCode(p: Promise<unknown> | (() => unknown), code: string, message?: RegExp): Promise<Error> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    assert.equal((err as { code?: string }).code, code, `expected ${code}, got ${String((err as Error).message)}`);
    if (message) assert.match((err as Error).message, message);
    return err as Error;
  }
  assert.fail(`expected ${code}, nothing was thrown`);
}

describe('driver settings from the environment', () => {
  it('names a driver\'s settings after its package', () => {
    assert.equal(driverSettingsName('@switchboard/driver-twilio'), 'TWILIO');
    assert.equal(driverSettingsName('@acme/switchboard-driver-fax-plus'), 'FAX_PLUS');
    assert.equal(driverSettingsName('switchboard-driver-acme'), 'ACME');
    assert.equal(driverSettingsName('@acme/pager'), 'PAGER');
  });

  it('reads DRIVERS as package names and refuses what is not one', async () => {
    assert.deepEqual(parseDriverList(' @acme/a, b  @acme/a '), ['@acme/a', 'b']);
    await expectCode(() => parseDriverList('@acme/a,Not A Package!'), ErrorCodes.VALIDATION_FAILED, /Not/);
  });

  it('converts DRIVER_<NAME>_<KEY> strings through the settings schema', async () => {
    const m = manifest('@acme/driver-fax', ['sms']);
    const env = { DRIVER_FAX_API_KEY: 'k123', DRIVER_FAX_RETRIES: '3', DRIVER_FAX_SANDBOX: 'true', DRIVER_FAX_NUMBERS: '["+15550100"]' };
    assert.deepEqual(settingsFromEnv(env, m, 'FAX'), { apiKey: 'k123', retries: 3, sandbox: true, numbers: ['+15550100'] });
    await expectCode(() => settingsFromEnv({ DRIVER_FAX_API_KEYS: 'x' }, m, 'FAX'), ErrorCodes.DRIVER_SETTINGS_INVALID, /DRIVER_FAX_API_KEYS.*DRIVER_FAX_API_KEY/);
    await expectCode(() => settingsFromEnv({ DRIVER_FAX_RETRIES: 'three' }, m, 'FAX'), ErrorCodes.DRIVER_SETTINGS_INVALID, /number/);
    await expectCode(() => settingsFromEnv({ DRIVER_FAX_NUMBERS: '[oops' }, m, 'FAX'), ErrorCodes.DRIVER_SETTINGS_INVALID, /JSON/);
  });

  it('gives each driver the settings under its name, and refuses one that belongs to none', async () => {
    const specs = driverSpecs(
      [{ packageName: '@switchboard/driver-twilio', settings: { accountSid: 'AC1' } }],
      '@acme/driver-fax, @acme/driver-fax-plus',
      { DRIVERS: 'x', DRIVER_FAX_API_KEY: 'a', DRIVER_FAX_PLUS_API_KEY: 'b', DRIVER_TWILIO_AUTH_TOKEN: 't' },
    );
    assert.deepEqual(
      specs.map((s) => [s.packageName, s.settingsName, s.env]),
      [
        ['@switchboard/driver-twilio', 'TWILIO', { DRIVER_TWILIO_AUTH_TOKEN: 't' }],
        ['@acme/driver-fax', 'FAX', { DRIVER_FAX_API_KEY: 'a' }],
        ['@acme/driver-fax-plus', 'FAX_PLUS', { DRIVER_FAX_PLUS_API_KEY: 'b' }],
      ],
    );
    await expectCode(() => driverSpecs([], '@acme/driver-fax', { DRIVER_FAKS_API_KEY: 'a' }), ErrorCodes.VALIDATION_FAILED, /DRIVER_FAKS_API_KEY.*DRIVER_FAX_\*/);
    await expectCode(() => driverSpecs([], '@acme/driver-fax, @other/driver-fax', {}), ErrorCodes.DRIVER_CONFLICT, /DRIVER_FAX_/);
  });

  it('accepts DRIVERS and DRIVER_* from the env file and the environment, and leaves demo mode then', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-drivers-'));
    try {
      writeFileSync(join(dir, '.env'), 'DRIVERS=@acme/driver-fax\nDRIVER_FAX_API_KEY=from-file\nSMS_DRIVER=fax\n');
      const settings = loadSettings({ envFile: join(dir, '.env'), env: { DRIVER_FAX_RETRIES: '2', UNRELATED_THING: 'x' } });
      const raw = settings as unknown as Record<string, unknown>;
      assert.equal(settings.DRIVERS, '@acme/driver-fax');
      assert.equal(settings.SMS_DRIVER, 'fax');
      assert.equal(raw.DRIVER_FAX_API_KEY, 'from-file');
      assert.equal(raw.DRIVER_FAX_RETRIES, '2');
      assert.equal(raw.UNRELATED_THING, undefined);
      assert.equal(isDemoMode(settings), false);
      assert.equal(isDemoMode(loadSettings({ env: {} })), true);
      assert.throws(() => loadSettings({ env: { DRIVERS: 'Bad Name' } }), (err: { code?: string }) => err.code === ErrorCodes.VALIDATION_FAILED);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('loadDriver', () => {
  const importer = (modules: Record<string, unknown>) => async (name: string) => {
    if (!(name in modules)) throw Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' });
    return modules[name];
  };

  it('loads a driver by package name with its settings from the environment over the configured ones', async () => {
    const seen: Record<string, unknown>[] = [];
    const m = manifest('@acme/driver-fax', ['sms']);
    const driver = await loadDriver(
      { packageName: '@acme/driver-fax', settings: { apiKey: 'configured', retries: 1 }, settingsName: 'FAX', env: { DRIVER_FAX_API_KEY: 'from-env' } },
      importer({ '@acme/driver-fax': { default: module(m, {}, seen) } }),
      context,
    );
    assert.equal(driver.manifest.name, '@acme/driver-fax');
    assert.deepEqual(seen, [{ apiKey: 'from-env', retries: 1 }]);
  });

  it('refuses a package that is missing, exports no driver, or exports a driver of another name', async () => {
    await expectCode(loadDriver({ packageName: '@acme/missing', settings: {} }, importer({}), context), ErrorCodes.DRIVER_NOT_FOUND, /npm install @acme\/missing/);
    await expectCode(loadDriver({ packageName: '@acme/x', settings: {} }, importer({ '@acme/x': { default: 42 } }), context), ErrorCodes.DRIVER_INCOMPATIBLE, /defineDriver/);
    const other = module(manifest('@acme/driver-other', ['sms']));
    await expectCode(
      loadDriver({ packageName: '@acme/driver-fax', settings: { apiKey: 'kkkk' } }, importer({ '@acme/driver-fax': { default: other } }), context),
      ErrorCodes.DRIVER_INCOMPATIBLE,
      /exports a driver named @acme\/driver-other/,
    );
  });

  it('refuses a driver whose sdk range does not include this sdk', async () => {
    const m = manifest('@acme/driver-fax', ['sms'], undefined, '^9.0.0');
    const err = await expectCode(
      loadDriver({ packageName: '@acme/driver-fax', settings: { apiKey: 'kkkk' } }, importer({ '@acme/driver-fax': { default: module(m) } }), context),
      ErrorCodes.DRIVER_INCOMPATIBLE,
      /\^9\.0\.0/,
    );
    assert.match(err.message, new RegExp(SDK_VERSION.replace(/\./g, '\\.')));
    const bad = manifest('@acme/driver-fax', ['sms'], undefined, 'whenever');
    await expectCode(
      loadDriver({ packageName: '@acme/driver-fax', settings: { apiKey: 'kkkk' } }, importer({ '@acme/driver-fax': { default: module(bad) } }), context),
      ErrorCodes.DRIVER_INCOMPATIBLE,
      /not a semver range/,
    );
  });

  it('refuses settings that break the schema, and a driver that offers what it does not declare', async () => {
    const m = manifest('@acme/driver-fax', ['sms']);
    await expectCode(
      loadDriver({ packageName: '@acme/driver-fax', settings: { apiKey: 'k' } }, importer({ '@acme/driver-fax': { default: module(m) } }), context),
      ErrorCodes.DRIVER_SETTINGS_INVALID,
    );
    const undeclared = module(manifest('@acme/driver-speech', ['sms']), { tts });
    await expectCode(
      loadDriver({ packageName: '@acme/driver-speech', settings: { apiKey: 'kkkk' } }, importer({ '@acme/driver-speech': { default: undeclared } }), context),
      ErrorCodes.DRIVER_INCOMPATIBLE,
      /offers tts/,
    );
  });
});

describe('choosing a driver per capability', () => {
  const driver = (name: string, channels: Channel[], speech?: SpeechCapability[]): Driver => ({ manifest: manifest(name, channels, speech) });
  const twilio = driver('@switchboard/driver-twilio', ['sms', 'whatsapp', 'voice']);
  const fax = driver('@acme/driver-fax', ['sms']);
  const speech = driver('@switchboard/driver-elevenlabs', [], ['tts']);

  it('gives each capability to the one driver offering it; a speech driver is not the voice channel', () => {
    const set = new DriverSet();
    set.use([speech, twilio]);
    assert.equal(set.for('voice'), twilio);
    assert.equal(set.for('tts'), speech);
    assert.equal(set.for('stt'), undefined);
    assert.equal(set.for('email'), undefined);
  });

  it('stops with DRIVER_CONFLICT naming the setting when two drivers offer one capability, whatever the order', async () => {
    for (const order of [[twilio, fax], [fax, twilio]]) {
      const err = await expectCode(() => new DriverSet().use(order), ErrorCodes.DRIVER_CONFLICT, /SMS_DRIVER/);
      assert.match(err.message, /@acme\/driver-fax/);
      assert.match(err.message, /@switchboard\/driver-twilio/);
    }
  });

  it('follows <CAPABILITY>_DRIVER by package name or settings name, and refuses one that names no candidate', async () => {
    const set = new DriverSet();
    set.use([twilio, fax], { sms: '@acme/driver-fax' });
    assert.equal(set.for('sms'), fax);
    assert.equal(set.for('whatsapp'), twilio);
    set.use([twilio, fax], { sms: 'twilio' });
    assert.equal(set.for('sms'), twilio);
    await expectCode(() => new DriverSet().use([twilio, fax], { sms: 'elevenlabs' }), ErrorCodes.DRIVER_NOT_FOUND, /SMS_DRIVER=elevenlabs/);
    await expectCode(() => new DriverSet().require('email'), ErrorCodes.UNAVAILABLE, /DRIVERS/);
  });

  it('takes several in order for a channel: the first is its own, the others where its sends may fail over; each must be loaded', async () => {
    const set = new DriverSet();
    set.use([twilio, fax], { sms: 'twilio, @acme/driver-fax' });
    assert.deepEqual(set.ordered('sms'), [twilio, fax]);
    assert.equal(set.for('sms'), twilio);
    assert.equal(set.ofProvider('fax'), fax);
    assert.deepEqual(set.chosen.sms, '@switchboard/driver-twilio,@acme/driver-fax');
    const err = await expectCode(() => new DriverSet().use([twilio, fax], { sms: 'twilio,telnyx' }), ErrorCodes.DRIVER_NOT_FOUND, /SMS_DRIVER=twilio,telnyx names no loaded driver/);
    assert.match(err.message, /\(telnyx\)/);
    const voice = driver('@acme/driver-phone', ['voice']);
    await expectCode(() => new DriverSet().use([twilio, voice], { voice: 'twilio,phone' }), ErrorCodes.DRIVER_CONFLICT, /VOICE_DRIVER=twilio,phone names 2 drivers; voice is served by one/);
  });
});

describe('built-in drivers', () => {
  it('keep their own settings: a driver loads when its credentials are all set, with only the settings given', async () => {
    const { builtInDriverSpecs } = await import('../../src/index.js');
    const settings = loadSettings({ env: { TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`, TWILIO_AUTH_TOKEN: 'tok', RESEND_API_KEY: 're_only_key' } });
    assert.deepEqual(builtInDriverSpecs(settings), [{ packageName: '@switchboard/driver-twilio', settings: { accountSid: `AC${'0'.repeat(32)}`, authToken: 'tok' } }]);
    assert.equal(isDemoMode(settings), false);
  });
});
