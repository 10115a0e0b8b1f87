import type { HealthResult } from '@switchboard/sdk';
import type twilio from 'twilio';

/** Fetches the account: proves the credentials and that the account can send. */
export async function accountHealth(client: twilio.Twilio, accountSid: string): Promise<HealthResult> {
  try {
    const account = await client.api.v2010.accounts(accountSid).fetch();
    const ok = account.status === 'active';
    return { ok, message: ok ? `Twilio account ${account.friendlyName || accountSid} is active.` : `Twilio account is ${account.status}.` };
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    const reason = status === 401 || status === 403 ? 'refused the credentials' : 'could not be reached';
    return { ok: false, message: `Twilio ${reason}${typeof status === 'number' ? ` (HTTP ${status})` : ''}.` };
  }
}
