import type { messagingApi } from '@line/bot-sdk';
import type { HealthResult } from '@switchboard/sdk';

/** Fetches the bot's profile: proves the channel access token. */
export async function botHealth(client: messagingApi.MessagingApiClient): Promise<HealthResult> {
  try {
    const bot = await client.getBotInfo();
    return { ok: true, message: `LINE bot ${bot.displayName} (${bot.basicId}) answered.` };
  } catch (err) {
    const status = (err as { status?: unknown } | null)?.status;
    const reason = status === 401 || status === 403 ? 'refused the channel access token' : 'could not be reached';
    return { ok: false, message: `LINE ${reason}${typeof status === 'number' ? ` (HTTP ${status})` : ''}.` };
  }
}
