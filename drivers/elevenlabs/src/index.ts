import { defineDriver, type Driver, type DriverManifest } from '@switchboard/sdk';
import { createClient } from './client.js';
import { userHealth } from './health.js';
import { settingsSchema, type ElevenLabsSettings } from './settings.js';
import { elevenLabsSpeech } from './speech.js';

/** What the runtime reads before creating the driver. */
export const manifest: DriverManifest = {
  name: '@switchboard/driver-elevenlabs',
  version: '0.1.0',
  provider: 'elevenlabs',
  sdk: '^0.1.0',
  channels: [],
  speech: ['tts'],
  settingsSchema,
};

/** ElevenLabs text-to-speech through the official `@elevenlabs/elevenlabs-js` SDK. */
export const driver = defineDriver<ElevenLabsSettings>(manifest, (settings): Driver => {
  const client = createClient(settings);
  return {
    manifest,
    tts: elevenLabsSpeech(client, settings),
    health: () => userHealth(client),
  };
});

export default driver;
export { DEFAULT_MODEL_ID, DEFAULT_VOICE_ID, settingsSchema } from './settings.js';
export type { ElevenLabsSettings } from './settings.js';
