import { createHash } from 'node:crypto';
import { messagingApi } from '@line/bot-sdk';
import { providerError, type OutboundMessage, type SendResult } from '@switchboard/sdk';

type Message = messagingApi.Message;

/** LINE takes at most five message objects per push. */
const MAX_MESSAGES = 5;

/** Pushes a text message (and images for media URLs) to a user, group or room. */
export async function pushMessage(client: messagingApi.MessagingApiClient, message: OutboundMessage): Promise<SendResult> {
  const retryKey = message.idempotencyKey ? retryKeyOf(message.idempotencyKey) : undefined;
  try {
    const { httpResponse, body } = await client.pushMessageWithHttpInfo({ to: message.to, messages: messagesOf(message) }, retryKey);
    const id = body?.sentMessages?.[0]?.id ?? httpResponse.headers.get('x-line-request-id');
    if (!id) throw new Error('LINE accepted the push but returned no message id');
    return { externalId: id, status: 'sent', cost: null, segments: 1 };
  } catch (err) {
    // A retried push whose retry key LINE already accepted answers 409: the message went out the first time.
    const accepted = acceptedRequestId(err);
    if (retryKey !== undefined && accepted) return { externalId: accepted, status: 'sent', cost: null, segments: 1 };
    throw providerError('line', err);
  }
}

function messagesOf(message: OutboundMessage): Message[] {
  const messages: Message[] = [];
  if (message.body !== '') messages.push({ type: 'text', text: message.body });
  for (const url of message.mediaUrls ?? []) {
    messages.push({ type: 'image', originalContentUrl: url, previewImageUrl: url });
  }
  return messages.slice(0, MAX_MESSAGES);
}

/** LINE wants a UUID as retry key; the same idempotency key always maps to the same UUID. */
export function retryKeyOf(idempotencyKey: string): string {
  const hex = createHash('sha256').update(idempotencyKey).digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** On a 409 for an already accepted retry key, LINE names the first push: its sent message id, else its request id. */
function acceptedRequestId(err: unknown): string | undefined {
  const e = err as { status?: unknown; body?: unknown; headers?: { get?: (name: string) => string | null } } | null;
  if (e?.status !== 409) return undefined;
  try {
    const first = (JSON.parse(String(e.body)) as { sentMessages?: { id?: unknown }[] }).sentMessages?.[0]?.id;
    if (typeof first === 'string' && first !== '') return first;
  } catch {
    // no JSON body: fall back to the header
  }
  return (typeof e.headers?.get === 'function' ? e.headers.get('x-line-accepted-request-id') : null) ?? undefined;
}
