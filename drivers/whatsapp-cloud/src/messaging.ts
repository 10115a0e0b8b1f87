import { providerError, type OutboundMessage, type SendResult } from '@switchboard/sdk';
import { toWaId } from './addresses.js';
import type { GraphClient } from './graph-client.js';
import { resolveTemplate, templateComponents } from './templates.js';

/** The answer to POST /{phone-number-id}/messages. */
interface SendAnswer {
  readonly messages?: readonly { readonly id?: string; readonly message_status?: string }[];
}

/**
 * Sends a text message, or the message's `template` instead of its body, through POST
 * /{phone-number-id}/messages. The sender is the configured phone number id, whatever `from` says.
 */
export async function sendMessage(client: GraphClient, message: OutboundMessage): Promise<SendResult> {
  const payload: Record<string, unknown> = { messaging_product: 'whatsapp', recipient_type: 'individual', to: toWaId(message.to) };
  if (message.template) {
    const { name, language } = await resolveTemplate(client, message.template);
    const components = templateComponents(message.template.variables);
    payload['type'] = 'template';
    payload['template'] = { name, language: { code: language }, ...(components.length > 0 ? { components } : {}) };
  } else if (message.mediaUrls && message.mediaUrls.length > 0) {
    // One media message per send: the first URL, the body as its caption.
    payload['type'] = 'image';
    payload['image'] = { link: message.mediaUrls[0], ...(message.body ? { caption: message.body } : {}) };
  } else {
    payload['type'] = 'text';
    payload['text'] = { preview_url: false, body: message.body };
  }
  const answer = await client.request<SendAnswer>('POST', `/${client.settings.phoneNumberId}/messages`, { body: payload });
  const id = answer.messages?.[0]?.id;
  if (typeof id !== 'string' || id === '') throw providerError('whatsapp-cloud', new Error('the answer carries no message id (messages[0].id)'), 502);
  return { externalId: id, status: 'accepted', cost: null, segments: 1 };
}
