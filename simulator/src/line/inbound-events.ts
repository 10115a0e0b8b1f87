import { createHmac } from 'node:crypto';
import { lineMessageId, opaqueToken, ulid } from '../ids.js';
import type { SimulatorState } from '../simulator-state.js';
import type { InboundLineOptions, InboundResult } from '../inbound-types.js';
import { deliverWebhook, webhookUrl } from '../webhook-delivery.js';

/** LINE's webhook signature: base64 HMAC-SHA256 of the exact body under the channel secret. */
export function lineSignature(channelSecret: string, body: string): string {
  return createHmac('sha256', channelSecret).update(body).digest('base64');
}

/** Posts a text message event as LINE does, and issues its reply token. */
export async function sendInboundLine(state: SimulatorState, o: InboundLineOptions): Promise<InboundResult> {
  const url = webhookUrl(state.gatewayUrl, o, 'line');
  const webhookEventId = o.webhookEventId ?? ulid();
  const replyToken = opaqueToken(24);
  const event = {
    type: 'message',
    message: { type: 'text', id: lineMessageId(), quoteToken: opaqueToken(60), text: o.text },
    webhookEventId,
    deliveryContext: { isRedelivery: o.isRedelivery ?? false },
    timestamp: Date.now(),
    source: { type: 'user', userId: o.userId },
    replyToken,
    mode: 'active',
  };
  // The event is signed with the secret of the bot it is addressed to (the first bot for an unknown one).
  const bot = state.credentials.lineBots.find((b) => b.botUserId === o.destination) ?? state.credentials.line;
  const payload = { destination: o.destination ?? bot.botUserId, events: [event] };
  const body = JSON.stringify(payload);
  const signature = lineSignature(bot.channelSecret, body);
  const sent = o.tamper ? JSON.stringify({ ...payload, events: [{ ...event, message: { ...event.message, text: `${o.text} [tampered]` } }] }) : body;
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'LineBotWebhook/2.0' };
  if (!o.omitSignature) headers['x-line-signature'] = signature;
  state.line.replyTokens.set(replyToken, { userId: o.userId, issuedAt: new Date() });
  const answer = await deliverWebhook(url, headers, sent);
  return { ...answer, id: webhookEventId, replyToken, url };
}
