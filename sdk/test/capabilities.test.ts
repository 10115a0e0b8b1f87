import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkDriverCapabilities, defineDriver, ErrorCodes, manifestCapabilities, validateDriver, type Driver, type DriverManifest } from '../src/index.js';

const base: DriverManifest = { name: '@acme/driver-x', version: '1.0.0', provider: 'x', sdk: '^0.1.0', channels: ['sms'], settingsSchema: { type: 'object' } };
const tts = { synthesize: async () => ({ audio: Buffer.alloc(0), format: 'ulaw_8000' as const, sampleRate: 8000 }), voices: async () => [] };
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return { code: (err as { code?: string }).code, message: (err as Error).message };
  }
  return undefined;
};

describe('capabilities in the manifest', () => {
  it('lists channels, then speech services', () => {
    assert.deepEqual(manifestCapabilities({ channels: ['sms', 'voice'] }), ['sms', 'voice']);
    assert.deepEqual(manifestCapabilities({ channels: [], speech: ['tts', 'stt'] }), ['tts', 'stt']);
  });

  it('validateDriver refuses unknown channels or speech services, and a manifest offering nothing', () => {
    const check = (manifest: Partial<DriverManifest> & Record<string, unknown>) => codeOf(() => validateDriver(defineDriver({ ...base, ...manifest } as DriverManifest, () => ({}) as Driver), {}));
    assert.equal(check({ speech: ['tts'], channels: [] }), undefined);
    assert.match(check({ channels: ['fax'] as never })!.message, /unknown channel fax/);
    assert.match(check({ speech: ['voice'] as never })!.message, /unknown speech service voice/);
    const nothing = check({ channels: [] })!;
    assert.equal(nothing.code, ErrorCodes.DRIVER_INCOMPATIBLE);
    assert.match(nothing.message, /neither a channel nor a speech service/);
  });

  it('checkDriverCapabilities matches telephony to voice and tts/stt to speech, both ways', () => {
    assert.equal(codeOf(() => checkDriverCapabilities({ manifest: { ...base, channels: [], speech: ['tts'] }, tts })), undefined);
    const undeclared = codeOf(() => checkDriverCapabilities({ manifest: { ...base, channels: ['voice'] }, tts }))!;
    assert.equal(undeclared.code, ErrorCodes.DRIVER_INCOMPATIBLE);
    const missing = codeOf(() => checkDriverCapabilities({ manifest: { ...base, speech: ['stt'] } }))!;
    assert.match(missing.message, /declares stt/);
  });
});
