import { defineDriver, type Driver, type DriverManifest } from '@switchboard/sdk';
import { createClient } from './client.js';
import { modelsHealth } from './health.js';
import { DEFAULT_MODEL, settingsSchema, type OpenAiSettings } from './settings.js';
import { openAiSpeech } from './speech.js';

/** What the runtime reads before creating the driver. */
export const manifest: DriverManifest = {
  name: '@switchboard/driver-openai',
  version: '0.1.0',
  provider: 'openai',
  sdk: '^0.1.0',
  channels: [],
  speech: ['tts'],
  settingsSchema,
};

/** OpenAI text-to-speech through the official `openai` SDK. */
export const driver = defineDriver<OpenAiSettings>(manifest, (settings): Driver => {
  const client = createClient(settings);
  return {
    manifest,
    tts: openAiSpeech(client, settings),
    health: () => modelsHealth(client, settings.model ?? DEFAULT_MODEL),
  };
});

export default driver;
export { DEFAULT_MODEL, DEFAULT_VOICE, settingsSchema } from './settings.js';
export type { OpenAiSettings } from './settings.js';
export { VOICES } from './speech.js';
