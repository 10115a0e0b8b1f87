import { twilioSid } from '../ids.js';
import type { SimulatorState } from '../simulator-state.js';
import type { InboundMessageStatusOptions, InboundResult, InboundTwilioMessageOptions } from '../inbound-types.js';
import { webhookUrl } from '../webhook-delivery.js';
import { countSegments } from './sms-segments.js';
import { statusCallbackParams } from './status-callbacks.js';
import { API_VERSION, countryOf } from './twilio-format.js';
import type { TwilioMessage } from './twilio-ledger.js';
import { postTwilioWebhook } from './twilio-webhook.js';

function withPrefix(channel: 'sms' | 'whatsapp', address: string): string {
  return channel === 'whatsapp' && !address.startsWith('whatsapp:') ? `whatsapp:${address}` : address;
}

function guessContentType(url: string): string {
  const ext = /\.([a-z0-9]+)(?:$|\?)/i.exec(url)?.[1]?.toLowerCase();
  const types: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', pdf: 'application/pdf', mp3: 'audio/mpeg', ogg: 'audio/ogg', mp4: 'video/mp4' };
  return (ext && types[ext]) || 'image/jpeg';
}

/** Form fields of an inbound message webhook, as Twilio posts them. */
export function inboundMessageParams(state: SimulatorState, channel: 'sms' | 'whatsapp', o: InboundTwilioMessageOptions, sid: string): Record<string, string> {
  const from = withPrefix(channel, o.from);
  const to = withPrefix(channel, o.to);
  const fromNumber = from.replace(/^whatsapp:/, '');
  const toNumber = to.replace(/^whatsapp:/, '');
  const mediaUrls = o.mediaUrls ?? [];
  const params: Record<string, string> = {
    ToCountry: countryOf(toNumber),
    ToState: '',
    SmsMessageSid: sid,
    NumMedia: String(mediaUrls.length),
    ToCity: '',
    FromZip: '',
    SmsSid: sid,
    FromState: '',
    SmsStatus: 'received',
    FromCity: '',
    Body: o.body,
    FromCountry: countryOf(fromNumber),
    To: to,
    ToZip: '',
    NumSegments: String(countSegments(o.body)),
    MessageSid: sid,
    AccountSid: state.credentials.twilio.accountSid,
    From: from,
    ApiVersion: API_VERSION,
  };
  if (o.messagingServiceSid) params['MessagingServiceSid'] = o.messagingServiceSid;
  mediaUrls.forEach((url, i) => {
    params[`MediaUrl${i}`] = url;
    params[`MediaContentType${i}`] = guessContentType(url);
  });
  if (channel === 'whatsapp') {
    params['ProfileName'] = o.profileName ?? 'Simulated User';
    params['WaId'] = fromNumber.replace(/^\+/, '');
    params['MessageType'] = mediaUrls.length > 0 ? 'image' : 'text';
    params['ReferralNumMedia'] = '0';
  }
  return params;
}

/** Sends an inbound SMS or WhatsApp message to Switchboard, signed as Twilio signs it. */
export async function sendInboundMessage(state: SimulatorState, channel: 'sms' | 'whatsapp', o: InboundTwilioMessageOptions): Promise<InboundResult> {
  const url = webhookUrl(state.gatewayUrl, o, channel);
  const sid = o.messageSid ?? twilioSid('SM');
  // The user wrote: the sender may answer free-form for 24 hours (as soon as Twilio has the message).
  if (channel === 'whatsapp') state.twilio.whatsappWindows.wrote(withPrefix(channel, o.from), withPrefix(channel, o.to), state.clock.now());
  const answer = await postTwilioWebhook(state.credentials.twilio.authToken, url, inboundMessageParams(state, channel, o, sid), o);
  return { ...answer, id: sid, url };
}

/**
 * Sends a message status callback for `messageSid`. Without `url` it goes to the StatusCallback the
 * message was sent with, else to `${gatewayUrl}/webhooks/${agentId}/${channel}` (Twilio may post
 * status to the messaging webhook; MessageStatus tells them apart).
 */
export async function sendMessageStatus(state: SimulatorState, o: InboundMessageStatusOptions): Promise<InboundResult> {
  const known = state.twilio.messages.get(o.messageSid);
  const channel = o.channel ?? known?.channel ?? 'sms';
  const url = o.url ?? known?.statusCallback ?? webhookUrl(state.gatewayUrl, o, channel);
  const message: TwilioMessage = known ?? {
    sid: o.messageSid,
    accountSid: state.credentials.twilio.accountSid,
    channel,
    from: null,
    sender: withPrefix(channel, o.from ?? state.settings.phoneNumbers[0] ?? '+15005550006'),
    to: withPrefix(channel, o.to ?? '+15005550001'),
    body: '',
    status: o.status,
    numSegments: 1,
    mediaUrls: [],
    price: null,
    errorCode: null,
    errorMessage: null,
    messagingServiceSid: null,
    dateCreated: new Date(),
    dateUpdated: new Date(),
    dateSent: null,
  };
  const extra: Record<string, string> = {};
  if (o.price !== undefined) {
    extra['Price'] = o.price;
    extra['PriceUnit'] = 'USD';
  }
  if (o.errorCode !== undefined) extra['ErrorCode'] = o.errorCode;
  if (known) {
    known.status = o.status;
    known.dateUpdated = new Date();
    if (o.price !== undefined) known.price = o.price;
    if (o.errorCode !== undefined) known.errorCode = Number(o.errorCode);
  }
  const answer = await postTwilioWebhook(state.credentials.twilio.authToken, url, statusCallbackParams(message, o.status, extra), o, 'MessageStatus');
  return { ...answer, id: o.messageSid, url };
}
