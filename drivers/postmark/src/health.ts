import type { HealthResult } from '@switchboard/sdk';
import type { ServerClient } from 'postmark';
import { postmarkFailure } from './failure.js';

/** Reads the server the token belongs to (GET /server): proves the token, and names the server and its delivery type. */
export async function serverHealth(client: ServerClient): Promise<HealthResult> {
  try {
    const server = await client.getServer();
    const sandbox = server.DeliveryType === 'Sandbox';
    return { ok: true, message: `Postmark accepted the server token; server "${server.Name}"${sandbox ? ' is a sandbox: nothing is delivered' : ''}.` };
  } catch (err) {
    return { ok: false, message: postmarkFailure(err).message };
  }
}
