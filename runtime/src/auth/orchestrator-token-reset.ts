import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { DataDirLock } from '../data-dir-lock.js';
import { SecretBox, loadSecretKey } from '../secrets.js';
import type { Settings } from '../settings/schema.js';
import { openStore } from '../store/store.js';
import { TokenService } from './token-service.js';

/**
 * Mints a new orchestrator token for an embedded data dir whose token was lost (`switchboard token
 * reset`), with no server running: it takes the data dir's lock, so a running server makes it refuse.
 * The old token stops working, and admin sessions signed in with it end at the next start.
 */
export async function resetOrchestratorToken(settings: Settings): Promise<string> {
  if (settings.ORCHESTRATOR_TOKEN) {
    throw new SwitchboardError(
      ErrorCodes.CONFLICT,
      'ORCHESTRATOR_TOKEN is set (in the settings file or the environment): that value is the orchestrator token, and it wins over a stored one. Read it there, or change it and restart.',
    );
  }
  if (settings.DATABASE_URL) {
    throw new SwitchboardError(
      ErrorCodes.CONFLICT,
      'DATABASE_URL is set: a cluster\u2019s token is reset by setting ORCHESTRATOR_TOKEN (openssl rand -hex 32) on every process and restarting them.',
    );
  }
  const dir = resolve(settings.DATA_DIR);
  if (!existsSync(join(dir, 'switchboard.db'))) {
    throw new SwitchboardError(ErrorCodes.NOT_FOUND, `No Switchboard store in ${dir}: name the data dir the server runs with (--data-dir or DATA_DIR).`);
  }
  const lock = await DataDirLock.acquire(dir);
  try {
    const store = await openStore({ dataDir: dir, synchronous: settings.SQLITE_SYNCHRONOUS });
    try {
      return await new TokenService(store, new SecretBox(loadSecretKey(dir, settings.SECRET_KEY))).resetOrchestratorToken();
    } finally {
      await store.close();
    }
  } finally {
    await lock.release();
  }
}
