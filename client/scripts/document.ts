// The OpenAPI document the client is generated from: the one a freshly started embedded server answers at
// GET /api/v1/openapi.json, read from a gateway started from source on a loopback port with a throwaway
// data dir (the document is built from the live route table, so this is the only faithful source).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startGateway } from '@switchboard/gateway';
import { createLogger, loadSettings } from '@switchboard/runtime';

/** The server URL written into the document: the default address, so the output does not depend on the port used. */
const SERVER_URL = 'http://127.0.0.1:3000';

/** Starts a default embedded server, reads its OpenAPI document, stops it. */
export async function currentDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-openapi-'));
  const settings = loadSettings({
    env: {},
    overrides: { PORT: 0, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ORCHESTRATOR_TOKEN: `sb_orch_${randomBytes(24).toString('base64url')}` },
  });
  const gateway = await startGateway({ settings, logger: createLogger({ level: 'silent', pretty: false }) });
  try {
    const response = await fetch(`${gateway.url}/api/v1/openapi.json`);
    if (!response.ok) throw new Error(`GET /api/v1/openapi.json answered ${response.status}`);
    const document = (await response.json()) as Record<string, unknown>;
    return { ...document, servers: [{ url: SERVER_URL }] };
  } finally {
    await gateway.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
