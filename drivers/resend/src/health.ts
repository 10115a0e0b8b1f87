import type { HealthResult } from '@switchboard/sdk';
import type { Resend } from 'resend';
import { REQUEST_TIMEOUT_MS, statusOfResendError } from './failure.js';

/** Lists the sending domains: proves the key and shows whether any domain is set up. */
export async function domainsHealth(resend: Resend): Promise<HealthResult> {
  const { data, error } = await resend.domains.list({}, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  // A sending-only key may not list domains, yet it authenticated: that is a working setup.
  if (error?.name === 'restricted_api_key') return { ok: true, message: 'Resend accepted the key (restricted to sending).' };
  if (error) {
    const status = statusOfResendError(error);
    return { ok: false, message: `Resend refused the request${status === undefined ? '' : ` (HTTP ${status})`}: ${error.message}` };
  }
  const count = data.data.length;
  return { ok: true, message: `Resend answered; ${count} sending domain${count === 1 ? '' : 's'}.` };
}
