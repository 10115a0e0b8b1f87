import type { SimCallStatus } from './types.js';

/*
 * The webhooks the simulator sends to Switchboard as the providers do: where each goes, how a test
 * breaks one on purpose, the fields of each kind, and Switchboard's answer.
 */

/** Switchboard's answer to a webhook the simulator sent, and the provider id it carried. */
export interface InboundResult {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Provider id of the event: MessageSid, Resend email id, LINE webhookEventId. */
  id: string;
  /** svix-id of a Resend delivery (what Switchboard deduplicates email on). */
  svixId?: string;
  /** LINE reply token issued with the event (valid once with POST /v2/bot/message/reply). */
  replyToken?: string;
  /** The URL posted to. */
  url: string;
}

/** Where an inbound webhook goes: `url` exactly, else `${gatewayUrl}/webhooks/${agentId}/${channel}`. */
export interface WebhookTarget {
  agentId?: string;
  url?: string;
}

/** Overrides that break a webhook on purpose, to test Switchboard's defences. */
export interface WebhookTampering {
  /** Change the body after signing it. */
  tamper?: boolean;
  /** Send no signature header. */
  omitSignature?: boolean;
}

/** An inbound SMS or WhatsApp message, as Twilio posts it. */
export interface InboundTwilioMessageOptions extends WebhookTarget, WebhookTampering {
  from: string;
  to: string;
  body: string;
  /** Reuse a MessageSid, to replay a delivery. */
  messageSid?: string;
  mediaUrls?: string[];
  messagingServiceSid?: string;
  /** WhatsApp sender's profile name. */
  profileName?: string;
}

/** An inbound SMS (MMS with media URLs), as Telnyx posts it in a `message.received` event. */
export interface InboundTelnyxMessageOptions extends WebhookTarget, WebhookTampering {
  from: string;
  to: string;
  body: string;
  mediaUrls?: string[];
  /** Reuse a message id. */
  messageId?: string;
  /** Reuse an event id, to replay a delivery. */
  eventId?: string;
  /** Signing time (`telnyx-timestamp`); one older than five minutes makes an expired delivery. */
  timestamp?: Date;
}

/** A Telnyx delivery event (`message.sent`, `message.finalized`) for a message Switchboard sent. */
export interface InboundTelnyxStatusOptions extends WebhookTarget, WebhookTampering {
  messageId: string;
  status: 'queued' | 'sending' | 'sent' | 'delivered' | 'sending_failed' | 'delivery_failed' | 'delivery_unconfirmed';
  errorCode?: string;
  eventId?: string;
  timestamp?: Date;
  /** Addresses to report when the simulator did not send this message itself. */
  from?: string;
  to?: string;
}

/** A Call Control event for a call (one the simulator holds, else one made from these fields), as Telnyx posts it. */
export interface InboundTelnyxCallEventOptions extends WebhookTarget, WebhookTampering {
  /** `call.initiated`, `call.answered`, `call.hangup`, or any other event type (`streaming.started`…). */
  eventType: string;
  /** The call_control_id; a new one when absent, '' for an event that names none. */
  callControlId?: string;
  from?: string;
  to?: string;
  direction?: 'inbound' | 'outbound';
  /** For `call.hangup`: the call's end (`completed` → normal_clearing, `busy`, `no-answer`, `canceled`, `failed`); `completed` by default. */
  status?: SimCallStatus;
  /** For `call.hangup`: seconds between answer and hang-up (0 by default). */
  durationSeconds?: number;
}

/** A Twilio message status callback for a message Switchboard sent. */
export interface InboundMessageStatusOptions extends WebhookTarget, WebhookTampering {
  messageSid: string;
  status: string;
  price?: string;
  errorCode?: string;
  channel?: 'sms' | 'whatsapp';
  /** Addresses to report when the simulator did not send this message itself. */
  from?: string;
  to?: string;
}

/** An inbound email, stored for the received-emails API and announced by an `email.received` event. */
export interface InboundEmailOptions extends WebhookTarget, WebhookTampering {
  from: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  cc?: string[];
  headers?: Record<string, string>;
  /** Reuse an email id. */
  emailId?: string;
  /** Reuse a svix-id, to replay a delivery. */
  svixId?: string;
  /** Signing time; an old one makes an expired delivery. */
  timestamp?: Date;
}

/** A Resend delivery event for an email Switchboard sent. */
export interface InboundEmailEventOptions extends WebhookTarget, WebhookTampering {
  type: 'email.delivered' | 'email.bounced' | 'email.complained' | 'email.sent';
  emailId: string;
  svixId?: string;
  timestamp?: Date;
}

/** How a Postmark webhook authenticates: the HTTP Basic credentials of its URL (Postmark signs nothing). */
export interface PostmarkWebhookAuth {
  /** Send no Authorization header, as a webhook URL without credentials makes Postmark do. */
  omitCredentials?: boolean;
  /** Other credentials than the simulator's own (or those in `url`). */
  credentials?: { username: string; password: string };
}

/** An inbound email, as Postmark's inbound webhook posts it (the parsed message itself). */
export interface InboundPostmarkEmailOptions extends WebhookTarget, PostmarkWebhookAuth {
  from: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  headers?: Record<string, string>;
  /** Reuse a MessageID, to replay a delivery. */
  messageId?: string;
}

/** A Postmark Delivery, Bounce (hard or soft) or SpamComplaint webhook for an email Switchboard sent. */
export interface InboundPostmarkEventOptions extends WebhookTarget, PostmarkWebhookAuth {
  type: 'Delivery' | 'HardBounce' | 'SoftBounce' | 'SpamComplaint';
  messageId: string;
  /** The recipient to report when the simulator did not send this email itself; its first `To` otherwise. */
  recipient?: string;
}

/** An inbound LINE text message event. */
export interface InboundLineOptions extends WebhookTarget, WebhookTampering {
  userId: string;
  text: string;
  /** Reuse a webhookEventId, to replay a delivery. */
  webhookEventId?: string;
  /** Bot user id the event is addressed to, and whose secret signs it; the first bot by default. */
  destination?: string;
  /** Mark the delivery as a redelivery. */
  isRedelivery?: boolean;
}

/** A Twilio recording status callback for a recording the simulator makes on the spot. */
export interface InboundRecordingStatusOptions extends WebhookTampering {
  url: string;
  callSid?: string;
  seconds?: number;
}

/** An inbound WhatsApp text message, as Meta's Cloud API posts it (`messages` field). */
export interface InboundCloudMessageOptions extends WebhookTarget, WebhookTampering {
  /** The user's number, E.164. */
  from: string;
  /** The business number, E.164: one of the simulator's phone numbers. */
  to: string;
  body: string;
  /** Reuse a message id (`wamid.…`), to replay a delivery. */
  messageId?: string;
  profileName?: string;
}

/** Sends provider webhooks to Switchboard exactly as the providers do. */
export interface InboundSenders {
  sms(o: InboundTwilioMessageOptions): Promise<InboundResult>;
  whatsapp(o: InboundTwilioMessageOptions): Promise<InboundResult>;
  messageStatus(o: InboundMessageStatusOptions): Promise<InboundResult>;
  /** An inbound SMS through Telnyx (`message.received`), signed with the account's Ed25519 key. */
  telnyxSms(o: InboundTelnyxMessageOptions): Promise<InboundResult>;
  /** A Telnyx delivery event for a message; `id` of the result is the event id. */
  telnyxStatus(o: InboundTelnyxStatusOptions): Promise<InboundResult>;
  /** A Call Control event (signed JSON) for a call, posted to `url`. */
  telnyxCallEvent(o: InboundTelnyxCallEventOptions): Promise<InboundResult>;
  /** A completed Twilio call recording of `seconds` (3 by default), its signed status callback posted to `url`. */
  recordingStatus(o: InboundRecordingStatusOptions): Promise<{ recordingSid: string; status: number }>;
  email(o: InboundEmailOptions): Promise<InboundResult>;
  emailEvent(o: InboundEmailEventOptions): Promise<InboundResult>;
  /** An inbound email through Postmark's inbound webhook, with the HTTP Basic credentials of its URL. */
  postmarkEmail(o: InboundPostmarkEmailOptions): Promise<InboundResult>;
  /** A Postmark Delivery, Bounce or SpamComplaint webhook; a hard bounce or a complaint deactivates the address there. */
  postmarkEvent(o: InboundPostmarkEventOptions): Promise<InboundResult>;
  line(o: InboundLineOptions): Promise<InboundResult>;
  /**
   * An inbound WhatsApp message through Meta's Cloud API, signed with `X-Hub-Signature-256`; it opens the user's
   * 24-hour window. Posted to `url`, else the agent's `/whatsapp` URL, else the number's subscribed callback URL.
   */
  whatsappCloud(o: InboundCloudMessageOptions): Promise<InboundResult>;
}
