import type { IncomingHttpHeaders } from 'node:http';
import type { SimulatedDeepgram } from './deepgram/simulated-deepgram.js';
import type { InboundSenders } from './inbound-types.js';
import type { PhoneOptions, SimulatorPhone } from './phone/phone-types.js';

/** A provider the simulator imitates. */
export type SimProvider = 'twilio' | 'telnyx' | 'resend' | 'postmark' | 'line' | 'elevenlabs' | 'deepgram' | 'whatsapp-cloud' | 'openai';

/** A message channel as Switchboard names it. */
export type SimChannel = 'sms' | 'whatsapp' | 'email' | 'line';

/** Credentials the simulated providers accept, and sign their webhooks with. */
export interface SimulatorCredentials {
  twilio: { accountSid: string; authToken: string };
  /** Telnyx API key (`KEY…`), and the account's webhook key pair: `publicKey` for the driver, `signingKey` the simulator's own. */
  telnyx: { apiKey: string; publicKey: string; signingKey: string };
  resend: { apiKey: string; webhookSecret: string /* whsec_… base64 */ };
  /** Postmark's server token (`X-Postmark-Server-Token`), and the HTTP Basic credentials its webhooks carry (Postmark signs none). */
  postmark: { serverToken: string; webhookUsername: string; webhookPassword: string };
  line: LineBotCredentials;
  /** Every LINE bot (channel) the simulator hosts, `line` first; each answers to its own access token. */
  lineBots: LineBotCredentials[];
  elevenlabs: { apiKey: string };
  deepgram: { apiKey: string };
  openai: { apiKey: string };
  /**
   * Meta's WhatsApp Cloud API: the system user's access token, the app secret that signs webhooks, the verify token
   * the app's webhook settings hold, the first business number's id and the WhatsApp Business Account id.
   */
  whatsappCloud: { accessToken: string; appSecret: string; verifyToken: string; phoneNumberId: string; wabaId: string };
}

/** One LINE bot (a Messaging API channel): its access token, its webhook signing secret, its user id. */
export interface LineBotCredentials {
  channelAccessToken: string;
  channelSecret: string;
  botUserId: string;
}

/** Where the simulator reports what it could not do (failed callbacks, bad control requests). */
export interface SimulatorLogger {
  info(o: object, m?: string): void;
  warn(o: object, m?: string): void;
}

/** Options of `startSimulator`. */
export interface SimulatorOptions {
  /** Interface to listen on; 127.0.0.1 by default. */
  host?: string;
  /** Port to listen on; 0 (any free port) by default. */
  port?: number;
  /** Switchboard's base URL, the target of inbound webhooks; settable later on the simulator. */
  gatewayUrl?: string;
  /** Fixed credentials; any provider left out gets random ones. */
  credentials?: Partial<SimulatorCredentials>;
  /**
   * User ids of further LINE bots to host beside `credentials.line`, each with its own random access
   * token and secret (listed in `credentials.lineBots`). A push shows the bot whose token sent it.
   */
  lineBotUserIds?: string[];
  /** Post Twilio message status callbacks (`sent`, then `delivered`) and Telnyx's `message.sent`, `message.finalized`; true by default. */
  statusCallbacks?: boolean;
  /** Delay before each status callback, in ms; 50 by default. */
  statusCallbackDelayMs?: number;
  /** How many requests, messages and resources are kept; 10,000 by default. */
  recordLimit?: number;
  logger?: SimulatorLogger;
  /** Numbers the Twilio account owns (IncomingPhoneNumbers); three +1 555 numbers by default. */
  phoneNumbers?: string[];
  /** Verified Resend domains (GET /domains), and Postmark's confirmed sender domains; `switchboard.test` by default. */
  emailDomains?: string[];
  /** The simulated phone: how it answers outbound calls, media pacing, URL rewrites. */
  phone?: PhoneOptions;
}

/** One request a simulated provider received. */
export interface RecordedRequest {
  /** Increasing number, unique for the simulator's lifetime. */
  seq: number;
  provider: SimProvider;
  method: string;
  /** Full path as received, without the query string (e.g. `/twilio/2010-04-01/...`). */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Form fields, JSON value, text, or undefined for an empty body. */
  body: unknown;
  /** Status answered; 0 when a timeout fault held the request unanswered. */
  status: number;
  /** Name of the fault that shaped the answer, if any (`latency`, `timeout`, `status`). */
  fault?: string;
  at: Date;
}

/** A message a driver sent through a simulated provider, in one shape for every channel. */
export interface SentMessage {
  provider: SimProvider;
  channel: SimChannel;
  /** The provider's id (Twilio MessageSid, Resend email id, LINE message id). */
  id: string;
  from: string;
  to: string;
  body: string;
  subject?: string;
  html?: string;
  /** Email: custom headers the send named (In-Reply-To, References). */
  headers?: Record<string, string>;
  mediaUrls: string[];
  statusCallback?: string;
  /** Twilio: the Content API template sent instead of a body (the body is its rendered text), and its variables. */
  contentSid?: string;
  contentVariables?: Record<string, string>;
  /** WhatsApp Cloud API: the template sent instead of a body (the body is its rendered text), and its values. */
  template?: { name: string; language: string; variables: Record<string, string> };
  at: Date;
}

/** Twilio call statuses the simulator uses. */
export type SimCallStatus =
  | 'queued'
  | 'ringing'
  | 'in-progress'
  | 'completed'
  | 'busy'
  | 'failed'
  | 'no-answer'
  | 'canceled';

/** A change made to a call through `POST Calls/{sid}.json`. */
export interface SimCallUpdate {
  twiml?: string;
  url?: string;
  status?: string;
  /** An incoming Telnyx call was answered by command: the phone runs its `twiml` (the stream). */
  answer?: boolean;
  at: Date;
}

/** What a call placed or answered through Telnyx Call Control carries besides the shared call fields. */
export interface TelnyxCallState {
  callLegId: string;
  callSessionId: string;
  connectionId: string;
  clientState?: string;
  streamUrl?: string;
}

/** A call: created through the Twilio Calls resource, or placed to the gateway by the simulated phone. */
export interface SimCall {
  sid: string;
  accountSid: string;
  from: string;
  to: string;
  status: SimCallStatus;
  direction: 'outbound-api' | 'inbound';
  url?: string;
  method?: string;
  twiml?: string;
  statusCallback?: string;
  statusCallbackMethod?: string;
  statusCallbackEvents: string[];
  /** Every other form field the driver sent (Record, MachineDetection, Timeout...). */
  params: Record<string, string | string[]>;
  updates: SimCallUpdate[];
  createdAt: Date;
  updatedAt: Date;
  startTime?: Date;
  endTime?: Date;
  /** Twilio's negative price string, once the call has ended. */
  price?: string;
  /** Set on a Telnyx Call Control call (its `sid` is the call_control_id): events are Telnyx's signed JSON. */
  telnyx?: TelnyxCallState;
}

/** What a fault does to the requests it matches. */
export interface FaultRule {
  /** Only this provider; every provider when absent. */
  provider?: SimProvider;
  /** Only requests whose path contains this text. */
  pathIncludes?: string;
  /** Only this HTTP method. */
  method?: string;
  /** Delay before answering, in ms. */
  latencyMs?: number;
  /** Probability (0..1) that `status` is answered; 1 when `status` is set alone. */
  errorRate?: number;
  /** Error status answered in the provider's own error shape (429 carries Retry-After). */
  status?: number;
  /** Retry-After seconds on a 429; 1 by default. */
  retryAfterSeconds?: number;
  /** Never answer: the request stays open until the client gives up or the simulator closes. */
  timeout?: boolean;
  /** Handle the request (a message is created, as the provider accepting it), then never answer: the answer is lost. */
  hangAfterAccepting?: boolean;
  /** Apply to the next N matching requests only. */
  times?: number;
}

/** Filter of `Simulator.messages`. */
export interface SentMessageFilter {
  provider?: SimProvider;
  channel?: SimChannel;
  to?: string;
}

/** The providers whose delivery receipts a test can silence. */
export type SilentProvider = 'twilio' | 'telnyx' | 'resend';

/**
 * What a silenced provider's messages come to, told only by its API: `delivered`, `undelivered`
 * (Twilio 30003, a Resend bounce), or `sent` (the carrier never reports: the status stays `sent`).
 */
export type SilentOutcome = 'delivered' | 'undelivered' | 'sent';

/** A running provider simulator. */
export interface Simulator {
  /** Origin the simulator listens on, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly baseUrls: { twilio: string; telnyx: string; resend: string; postmark: string; line: string; elevenlabs: string; deepgram: string; whatsappCloud: string; openai: string };
  readonly credentials: SimulatorCredentials;
  gatewayUrl: string | undefined;
  requests(provider?: SimProvider): RecordedRequest[];
  messages(filter?: SentMessageFilter): SentMessage[];
  calls(): SimCall[];
  faults: { add(rule: FaultRule): void; clear(): void; list(): FaultRule[] };
  /**
   * Makes Twilio, Telnyx or Resend stop calling back about the messages sent from now on: each still comes to
   * `outcome` (one status-callback delay after `sent`), which only the provider's API tells (Twilio's
   * Messages fetch, Telnyx's GET /v2/messages/{id}, Resend's `last_event`). A silenced Twilio posts no call status callbacks either (a
   * Calls fetch tells). `undefined` restores the callbacks; so does `reset()`.
   */
  silence(provider: SilentProvider, outcome: SilentOutcome | undefined): void;
  /**
   * The providers' clock (WhatsApp's service window runs on it): `advance(ms)` moves it forward, as
   * `POST /_sim/clock {"advanceMs": …}` does; `reset()` puts it back to the real time.
   */
  clock: { now(): Date; advance(ms: number): Date };
  /** Forget recorded traffic, stored resources and faults; cancel pending callbacks; the clock back to the real time. */
  reset(): void;
  inbound: InboundSenders;
  /** The simulated Deepgram's transcriber: phrases it recognises, sessions it served (README, "Deepgram"). */
  deepgram: SimulatedDeepgram;
  /**
   * The simulated WhatsApp Cloud API's webhook subscription: where a business number's `messages` webhooks
   * (statuses, and inbound messages without a target of their own) go; the first number when none is named.
   * `POST /{phone-number-id}` with `webhook_configuration` sets it too, after Meta's GET handshake.
   */
  whatsappCloud: { subscribe(url: string | undefined, phoneNumber?: string): void };
  /** Places inbound calls to the gateway and answers the calls it places. */
  phone: SimulatorPhone;
  close(): Promise<void>;
}
