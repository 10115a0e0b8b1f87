import { resetOrchestratorToken } from '@switchboard/runtime';
import { readSettings } from './deployment.js';

/** `switchboard token reset`: a new orchestrator token for the data dir, printed once. */
export async function resetToken(line: { dataDir?: string; settingsFile?: string }): Promise<number> {
  const settings = readSettings({
    envFile: line.settingsFile ?? './.env',
    requireEnvFile: line.settingsFile !== undefined,
    env: process.env,
    overrides: { DATA_DIR: line.dataDir },
  });
  const token = await resetOrchestratorToken(settings);
  process.stdout.write(
    `New orchestrator token for ${settings.DATA_DIR} (shown once; store it now): ${token}\n` +
      'The old one no longer works; admin sessions signed in with it end when the server starts.\n',
  );
  return 0;
}
