import { providerError, type DeliveryStatusEvent, type SentMessageRef } from '@switchboard/sdk';
import type Telnyx from 'telnyx';
import { statusOf } from './client.js';
import { costOf, errorCodeOf, recipientStatus, type MessagePayload } from './message-payload.js';

/** Telnyx message ids are UUIDs; nothing else may go into the Messages resource path. */
const MESSAGE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Retrieves a sent message (GET /v2/messages/{id}) and reads its recipient's status as a receipt would
 * carry it; undefined when Telnyx does not know the id (404) or reports a status the driver does not know.
 */
export async function fetchMessageStatus(client: Telnyx, message: SentMessageRef): Promise<DeliveryStatusEvent | undefined> {
  if (!MESSAGE_ID.test(message.externalId)) return undefined;
  let fetched;
  try {
    fetched = await client.messages.retrieve(message.externalId);
  } catch (err) {
    const status = statusOf(err);
    if (status === 404) return undefined;
    throw providerError('telnyx', err, status);
  }
  const data = fetched.data as MessagePayload | undefined;
  const status = data ? recipientStatus(data) : undefined;
  if (!data || status === undefined) return undefined;
  const errorCode = errorCodeOf(data);
  return {
    type: 'status',
    channel: message.channel,
    externalId: data.id ?? message.externalId,
    status,
    cost: costOf(data),
    ...(errorCode !== undefined ? { errorCode } : {}),
  };
}
