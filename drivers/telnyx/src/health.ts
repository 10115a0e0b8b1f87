import type { HealthResult } from '@switchboard/sdk';
import type Telnyx from 'telnyx';
import { statusOf } from './client.js';

/** Reads the account balance: proves the API key, and shows whether the account can pay for sends. */
export async function accountHealth(client: Telnyx): Promise<HealthResult> {
  try {
    const { data } = await client.balance.retrieve();
    const available = Number(data?.available_credit ?? data?.balance);
    const ok = !Number.isFinite(available) || available > 0;
    const credit = `${data?.available_credit ?? data?.balance ?? '?'} ${data?.currency ?? ''}`.trim();
    return { ok, message: ok ? `Telnyx account reachable; available credit ${credit}.` : `Telnyx account has no available credit (${credit}).` };
  } catch (err) {
    const status = statusOf(err);
    const reason = status === 401 || status === 403 ? 'refused the API key' : 'could not be reached';
    return { ok: false, message: `Telnyx ${reason}${status === undefined ? '' : ` (HTTP ${status})`}.` };
  }
}
