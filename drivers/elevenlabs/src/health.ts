import type { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import type { HealthResult } from '@switchboard/sdk';
import { statusOf } from './client.js';

/** Fetches the user's subscription: proves the key, and says how many characters are left. */
export async function userHealth(client: ElevenLabsClient): Promise<HealthResult> {
  try {
    const { subscription } = await client.user.get();
    const left = subscription.characterLimit - subscription.characterCount;
    return { ok: true, message: `ElevenLabs ${subscription.tier} subscription: ${left} of ${subscription.characterLimit} characters left.` };
  } catch (err) {
    const status = statusOf(err);
    const reason = status === 401 || status === 403 ? 'refused the API key' : 'could not be reached';
    return { ok: false, message: `ElevenLabs ${reason}${status === undefined ? '' : ` (HTTP ${status})`}.` };
  }
}
