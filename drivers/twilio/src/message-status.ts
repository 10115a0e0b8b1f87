import { providerError, type DeliveryStatusEvent, type SentMessageRef } from '@switchboard/sdk';
import type twilio from 'twilio';
import { priceToCost } from './messaging.js';
import { isMessageSid } from './sids.js';
import { normaliseStatus } from './status.js';

/**
 * Fetches a sent message (Messages `fetch`) and reads its status as a receipt would carry it; undefined
 * when Twilio does not know the SID (404) or reports a status the driver does not know yet.
 */
export async function fetchMessageStatus(client: twilio.Twilio, message: SentMessageRef): Promise<DeliveryStatusEvent | undefined> {
  // The SDK puts the SID into the URL path as it is: only a real message SID may get there.
  if (!isMessageSid(message.externalId)) return undefined;
  let fetched;
  try {
    fetched = await client.messages(message.externalId).fetch();
  } catch (err) {
    const status = (err as { status?: unknown } | null)?.status;
    if (status === 404) return undefined;
    throw providerError('twilio', err, typeof status === 'number' ? status : undefined);
  }
  const status = normaliseStatus(fetched.status);
  if (status === undefined) return undefined;
  return {
    type: 'status',
    channel: message.channel,
    externalId: fetched.sid,
    status,
    cost: priceToCost(fetched.price),
    ...(fetched.errorCode !== null && fetched.errorCode !== undefined ? { errorCode: String(fetched.errorCode) } : {}),
  };
}
