import type { DeepgramClient } from '@deepgram/sdk';
import type { HealthResult } from '@switchboard/sdk';
import { statusOf } from './client.js';

/** Lists the key's projects: a cheap call that proves the key. */
export async function projectsHealth(client: DeepgramClient): Promise<HealthResult> {
  try {
    const { projects = [] } = await client.manage.v1.projects.list();
    return { ok: true, message: `Deepgram accepted the key (${projects.length} project${projects.length === 1 ? '' : 's'}).` };
  } catch (err) {
    const status = statusOf(err);
    const reason = status === 401 || status === 403 ? 'refused the API key' : 'could not be reached';
    return { ok: false, message: `Deepgram ${reason}${status === undefined ? '' : ` (HTTP ${status})`}.` };
  }
}
