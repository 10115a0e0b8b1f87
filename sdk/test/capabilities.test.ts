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

  it('checkDriverCapabilities matches telephony.recording to telephony: ["recording"], and validateDriver refuses unknown features', () => {
    const telephony = { placeCall: async () => ({ callSid: 'c', status: 'queued' }), updateCall: async () => {}, render: () => ({ contentType: 'text/xml', body: '' }), parseCallWebhook: () => ({ type: 'call-status' as const, callSid: 'c', status: 'completed', durationSeconds: null, cost: null }) };
    const recording = { start: async () => {}, parseRecordingWebhook: () => ({ type: 'recording' as const, callSid: 'c', recordingId: 'r', status: 'completed' as const, durationSeconds: 1, url: '' }), fetch: async () => ({ audio: Buffer.alloc(0), contentType: 'audio/wav' }) };
    const voice = { ...base, channels: ['voice'] as const };
    assert.equal(codeOf(() => checkDriverCapabilities({ manifest: { ...voice, telephony: ['recording'] }, telephony: { ...telephony, recording } })), undefined);
    assert.match(codeOf(() => checkDriverCapabilities({ manifest: voice, telephony: { ...telephony, recording } }))!.message, /offers recording/);
    assert.match(codeOf(() => checkDriverCapabilities({ manifest: { ...voice, telephony: ['recording'] }, telephony }))!.message, /declares recording/);
    const unknown = codeOf(() => validateDriver(defineDriver({ ...voice, telephony: ['fax'] as never }, () => ({}) as Driver), {}))!;
    assert.match(unknown.message, /unknown telephony feature fax/);
  });
});
