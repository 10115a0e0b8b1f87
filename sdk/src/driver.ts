import type { SpeechCapability, TelephonyFeature } from './capabilities.js';
import type { Channel } from './channels.js';
import type { SpeechRecognition, SpeechSynthesis, Telephony } from './voice.js';

/** A JSON Schema object (draft 2020-12 subset understood by ajv). */
export type JsonSchema = Record<string, unknown>;

/** What a driver declares about itself; the runtime checks it before creating the driver. */
export interface DriverManifest {
  /** The npm package name the runtime loads the driver by, e.g. `@switchboard/driver-twilio`. */
  readonly name: string;
  readonly version: string;
  /** Provider family the driver talks to, e.g. `twilio`; shown in status and metrics. */
  readonly provider: string;
  /** semver range of `@switchboard/sdk` the driver was written against, e.g. `^0.1.0`. */
  readonly sdk: string;
  /** The channels the driver carries (`voice` means it places and answers calls); empty for a speech-only driver. */
  readonly channels: readonly Channel[];
  /** Speech services the driver offers stream-mode calls (`tts`, `stt`); a speech driver lists no `voice` channel. */
  readonly speech?: readonly SpeechCapability[];
  /** Optional telephony features a voice driver offers (`recording`: the provider records calls). */
  readonly telephony?: readonly TelephonyFeature[];
  /** JSON Schema of the driver's settings object; the runtime validates settings against it. */
  readonly settingsSchema: JsonSchema;
}

/** Minimal structured logger a driver may write to (pino-compatible). */
export interface DriverLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What the runtime hands a driver when creating it. */
export interface DriverContext {
  readonly logger: DriverLogger;
  /** Public base URL of the gateway (e.g. `https://sb.example.com`), for status callback URLs. */
  readonly publicBaseUrl: string;
}

/** Delivery states of a message, normalised across providers. */
export type MessageStatus =
  | 'queued'
  | 'accepted'
  | 'sending'
  | 'sent'
  | 'delivered'
  | 'read'
  | 'received'
  | 'undelivered'
  | 'failed'
  /** No final status came from the provider within the runtime's bound; set by the runtime, never by a driver. */
  | 'unknown';

/** A message to send through a provider. Addresses are already the provider's native form. */
export interface OutboundMessage {
  readonly channel: Channel;
  readonly from: string;
  readonly to: string;
  readonly body: string;
  readonly subject?: string;
  readonly html?: string;
  readonly mediaUrls?: readonly string[];
  /** Where the provider should post delivery receipts, when it supports them. */
  readonly statusCallbackUrl?: string;
  /** Forwarded to providers that deduplicate sends themselves. */
  readonly idempotencyKey?: string;
  /** Email: the Message-ID of the email this one answers, for `In-Reply-To` (with `references`, so mail clients thread it). */
  readonly inReplyTo?: string;
  /** Email: the Message-IDs of the thread so far, oldest first, for `References`. */
  readonly references?: readonly string[];
  /** A template the provider approved, sent instead of `body` (WhatsApp outside its 24-hour service window). */
  readonly template?: TemplateRef;
  /**
   * Email: more headers to set, by name (`List-Unsubscribe` and `List-Unsubscribe-Post`, RFC 8058);
   * a driver whose provider takes no custom headers leaves them out.
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Which approved template a send uses, and the values of its placeholders. */
export interface TemplateRef {
  /** The provider's id of the template (Twilio: the Content SID, `HX…`). */
  readonly id?: string;
  /** The template's name, when no id is given: the driver looks the id up (with `language`, when given). */
  readonly name?: string;
  /** The template's language, e.g. `en` or `en_US`. */
  readonly language?: string;
  /** Values of the template's placeholders by name (Twilio: `"1"`, `"2"`, …). */
  readonly variables?: Readonly<Record<string, string>>;
}

/** A message template as the provider keeps it. */
export interface MessageTemplate {
  /** The provider's id (Twilio: the Content SID, `HX…`). */
  readonly id: string;
  readonly name: string;
  readonly language: string;
  /** Lower case, e.g. `approved`, `pending`, `rejected`, `paused`. */
  readonly status: string;
  /** E.g. `UTILITY`, `MARKETING`, `AUTHENTICATION`; null when the provider does not say. */
  readonly category: string | null;
  /** The text with its placeholders (`{{1}}`), when the template has one. */
  readonly body: string | null;
  /** Each placeholder's sample value, by name. */
  readonly variables: Readonly<Record<string, string>>;
}

/** The templates a provider keeps for a channel (WhatsApp). */
export interface MessageTemplates {
  /** Every template of the account for `channel`, whatever its status. */
  list(channel: Channel): Promise<MessageTemplate[]>;
}

/** What a provider said about an accepted send. */
export interface SendResult {
  /** The provider's id for the message (MessageSid, email id, LINE request id...). */
  readonly externalId: string;
  readonly status: MessageStatus;
  /** Provider cost in USD when the provider reports it at send time, else null. */
  readonly cost: number | null;
  /** Billable segments (SMS parts); 1 where the notion does not apply. */
  readonly segments: number;
  /** The text the provider composed, when it is not the message's `body`: a template as rendered. */
  readonly body?: string;
}

/** An inbound HTTP request from a provider, as received: nothing re-serialised. */
export interface WebhookRequest {
  readonly channel: Channel;
  readonly method: string;
  /** The public URL the provider called, including the query string. */
  readonly url: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly rawBody: Buffer;
}

/** A message a person sent to the agent. */
export interface InboundMessageEvent {
  readonly type: 'message';
  readonly channel: Channel;
  /** The provider's id, used to deduplicate retries. */
  readonly externalId: string;
  readonly from: string;
  readonly to: string;
  readonly body: string;
  readonly subject?: string;
  readonly html?: string;
  readonly mediaUrls: readonly string[];
  readonly receivedAt: string;
  /** Email: the RFC 5322 Message-ID, when the provider reports it (a reply names it in `In-Reply-To`). */
  readonly emailMessageId?: string;
}

/** A delivery receipt for a message the agent sent. */
export interface DeliveryStatusEvent {
  readonly type: 'status';
  readonly channel: Channel;
  /** The provider's id of the message whose status changed. */
  readonly externalId: string;
  readonly status: MessageStatus;
  /** Final provider cost in USD when the provider reports it, else null. */
  readonly cost: number | null;
  readonly errorCode?: string;
  /** Unique id of this receipt when the provider gives one; used to deduplicate retries. */
  readonly eventId?: string;
  /**
   * Set when the receipt says the address must not be written again: a hard (permanent) bounce, or the
   * recipient's complaint (marked as spam). The runtime suppresses the address for the agent.
   */
  readonly suppression?: 'hard-bounce' | 'complaint';
}

/** A message the runtime sent, as it asks its provider about it when the receipts stop coming. */
export interface SentMessageRef {
  readonly channel: Channel;
  /** The provider's id, from the send's {@link SendResult}. */
  readonly externalId: string;
  readonly from: string;
  readonly to: string;
  /** When the runtime stored the send. */
  readonly sentAt: Date;
}

/** A normalised inbound webhook event. */
export type InboundEvent = InboundMessageEvent | DeliveryStatusEvent;

/** The body and content type a provider expects in its 200 answer. */
export interface WebhookAck {
  readonly contentType: string;
  readonly body: string;
}

/** A driver's answer to a provider's subscription check (a GET on the webhook URL). */
export interface WebhookHandshakeAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** Inbound webhook handling for a provider. */
export interface WebhookCapability {
  /** Checks the provider's signature on the raw request; throws SIGNATURE_INVALID when it does not hold. */
  verify(request: WebhookRequest): void | Promise<void>;
  /**
   * Parses a verified request into events; throws MALFORMED_PAYLOAD when the body is not the provider's shape.
   * May call the provider (Resend sends email bodies by reference); the webhook is acknowledged only after it resolves.
   */
  parse(request: WebhookRequest): InboundEvent[] | Promise<InboundEvent[]>;
  /** The acknowledgement the provider expects for this channel. */
  acknowledge(channel: Channel): WebhookAck;
  /**
   * Media types the provider posts webhooks as; the gateway answers 415 to others. When absent, the
   * channel's `CHANNEL_SPECS[channel].webhook.contentTypes`: `application/x-www-form-urlencoded` for sms,
   * whatsapp and voice (Twilio's), `application/json` otherwise.
   */
  readonly contentTypes?: readonly string[];
  /**
   * Answers the GET with which the provider checks the webhook URL before it posts there (Meta's
   * `hub.mode=subscribe` with `hub.challenge`); undefined when the request is not one. Leave it out
   * when the provider makes no such check.
   */
  handshake?(request: WebhookRequest): WebhookHandshakeAnswer | undefined;
}

/** Outcome of a health probe. */
export interface HealthResult {
  readonly ok: boolean;
  readonly message: string;
}

/** A created driver: a set of optional capabilities for one provider. */
export interface Driver {
  readonly manifest: DriverManifest;
  /** Sends one message; throws a coded error (PROVIDER_ERROR, retryable where it can help). */
  send?(message: OutboundMessage): Promise<SendResult>;
  /**
   * For a provider that does not deduplicate sends by `idempotencyKey`: the messages it already holds
   * with this one's addresses and body, created at or after `since`. A send whose node died during the
   * provider call is adopted from these instead of being sent twice.
   */
  findSent?(message: OutboundMessage, since: Date): Promise<SendResult[]>;
  /**
   * Asks the provider for a sent message's status now, for when its receipts do not come. Resolves to the
   * status as a receipt would carry it, or undefined when the provider has none for the message (it does
   * not know the id, or keeps no status); throws PROVIDER_ERROR (retryable where it can help) when it
   * cannot be asked now. Leave it out when the provider's API cannot tell.
   */
  fetchStatus?(message: SentMessageRef): Promise<DeliveryStatusEvent | undefined>;
  readonly webhooks?: WebhookCapability;
  /** A real probe of the provider (an API call), not a configuration check. */
  health?(): Promise<HealthResult>;
  /** Voice calls (channel `voice`). */
  readonly telephony?: Telephony;
  /** Text-to-speech (manifest `speech` lists `tts`). */
  readonly tts?: SpeechSynthesis;
  /** Streaming speech-to-text (manifest `speech` lists `stt`). */
  readonly stt?: SpeechRecognition;
  /** Message templates (WhatsApp): the ones the provider approved can be sent outside the service window. */
  readonly templates?: MessageTemplates;
  /** Tariff estimate in USD for one message when the provider reports no price. */
  estimateCost?(message: OutboundMessage, segments: number): number | null;
  close?(): Promise<void>;
}

/** What a driver package exports: its manifest and a factory. */
export interface DriverModule<Settings = Record<string, unknown>> {
  readonly manifest: DriverManifest;
  create(settings: Settings, context: DriverContext): Driver | Promise<Driver>;
}

/** Declares a driver. Export the result as the package's default export. */
export function defineDriver<Settings>(
  manifest: DriverManifest,
  create: (settings: Settings, context: DriverContext) => Driver | Promise<Driver>,
): DriverModule<Settings> {
  return Object.freeze({ manifest: Object.freeze({ ...manifest }), create });
}
