import { defineDriver, type Driver, type DriverManifest } from '@switchboard/sdk';
import { createClient } from './client.js';
import { projectsHealth } from './health.js';
import { deepgramRecognition } from './recognition.js';
import { settingsSchema, type DeepgramSettings } from './settings.js';

/** What the runtime reads before creating the driver. */
export const manifest: DriverManifest = {
  name: '@switchboard/driver-deepgram',
  version: '0.1.0',
  provider: 'deepgram',
  sdk: '^0.1.0',
  channels: [],
  speech: ['stt'],
  settingsSchema,
};

/** Deepgram live transcription through the official `@deepgram/sdk`. */
export const driver = defineDriver<DeepgramSettings>(manifest, (settings, context): Driver => {
  const client = createClient(settings);
  const stt = deepgramRecognition(client, settings, context.logger);
  return {
    manifest,
    stt,
    health: () => projectsHealth(client),
    close: () => stt.closeAll(),
  };
});

export default driver;
export { environmentOf } from './client.js';
export { DEFAULT_CHUNK_MS, DEFAULT_ENDPOINTING_MS, DEFAULT_FINALIZE_TIMEOUT_MS, DEFAULT_MODEL, settingsSchema } from './settings.js';
export type { DeepgramSettings } from './settings.js';
