import { countSegments, providerError, type OutboundMessage, type SendResult } from '@switchboard/sdk';
import type Telnyx from 'telnyx';
import { statusOf } from './client.js';
import { costOf, recipientStatus, type MessagePayload } from './message-payload.js';
import type { TelnyxSettings } from './settings.js';

type MessageSendParams = Parameters<Telnyx['messages']['send']>[0];

/** Sends an SMS, or an MMS when the message carries media URLs, through POST /v2/messages. */
export async function sendMessage(client: Telnyx, settings: TelnyxSettings, message: OutboundMessage): Promise<SendResult> {
  const params: MessageSendParams = { to: message.to };
  if (message.from) params.from = message.from;
  if (message.body) params.text = message.body;
  if (settings.messagingProfileId) params.messaging_profile_id = settings.messagingProfileId;
  if (message.mediaUrls && message.mediaUrls.length > 0) {
    params.media_urls = [...message.mediaUrls];
    params.type = 'MMS';
    if (message.subject) params.subject = message.subject;
  }
  if (message.statusCallbackUrl) params.webhook_url = message.statusCallbackUrl;

  let sent;
  try {
    sent = await client.messages.send(params);
  } catch (err) {
    throw providerError('telnyx', err, statusOf(err));
  }
  const data = sent.data as MessagePayload | undefined;
  if (!data?.id) throw providerError('telnyx', new Error('the answer carries no message id'), 502);
  return resultOf(data, message);
}

function resultOf(data: MessagePayload, message: OutboundMessage): SendResult {
  const parts = data.parts;
  return {
    externalId: data.id!,
    status: recipientStatus(data) ?? 'queued',
    cost: costOf(data),
    segments: Number.isInteger(parts) && parts! > 0 ? parts! : countSegments(message.body).segments,
  };
}
