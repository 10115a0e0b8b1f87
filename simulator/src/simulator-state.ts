import { randomUUID } from 'node:crypto';
import { DeferredTasks } from './deferred-tasks.js';
import { FaultRules } from './faults.js';
import type { SimRequest } from './http/sim-request.js';
import type { SimResponse } from './http/sim-response.js';
import { LineBotState } from './line/line-bot-state.js';
import { PostmarkLedger } from './postmark/postmark-ledger.js';
import { ResendMailbox } from './resend/resend-mailbox.js';
import { RingBuffer } from './ring-buffer.js';
import { SimClock } from './sim-clock.js';
import { TelnyxLedger } from './telnyx/telnyx-ledger.js';
import { TwilioLedger } from './twilio/twilio-ledger.js';
import { CloudLedger } from './whatsapp-cloud/cloud-ledger.js';
import type { RecordedRequest, SentMessage, SentMessageFilter, SilentOutcome, SilentProvider, SimProvider, SimulatorCredentials, SimulatorLogger } from './types.js';

/** One simulated provider's HTTP API. */
export interface ProviderApi {
  readonly provider: SimProvider;
  handle(req: SimRequest): SimResponse | Promise<SimResponse>;
  /** The provider's own error answer for an injected fault. */
  faultResponse(status: number, retryAfterSeconds: number): SimResponse;
}

/** Settings fixed at start. */
export interface SimulatorSettings {
  statusCallbacks: boolean;
  statusCallbackDelayMs: number;
  recordLimit: number;
  phoneNumbers: string[];
  emailDomains: string[];
}

/** Everything the simulated providers remember, shared by their APIs and the inbound senders. */
export class SimulatorState {
  readonly credentials: SimulatorCredentials;
  readonly settings: SimulatorSettings;
  readonly logger: SimulatorLogger;
  gatewayUrl: string | undefined;
  readonly requests: RingBuffer<RecordedRequest>;
  readonly messages: RingBuffer<SentMessage>;
  readonly faults = new FaultRules();
  /** The providers' time: the real one, or ahead of it once a test moved it. */
  readonly clock = new SimClock();
  readonly tasks: DeferredTasks;
  readonly twilio: TwilioLedger;
  readonly telnyx: TelnyxLedger;
  readonly resend: ResendMailbox;
  readonly postmark: PostmarkLedger;
  readonly line: LineBotState;
  readonly whatsappCloud: CloudLedger;
  readonly elevenlabs = { characterCount: 0 };
  /** Providers that stopped calling back, and what their messages come to unannounced (`Simulator.silence`). */
  readonly silenced = new Map<SilentProvider, SilentOutcome>();
  #seq = 0;

  constructor(credentials: SimulatorCredentials, settings: SimulatorSettings, logger: SimulatorLogger, gatewayUrl: string | undefined) {
    this.credentials = credentials;
    this.settings = settings;
    this.logger = logger;
    this.gatewayUrl = gatewayUrl;
    this.requests = new RingBuffer(settings.recordLimit);
    this.messages = new RingBuffer(settings.recordLimit);
    this.tasks = new DeferredTasks(logger);
    this.twilio = new TwilioLedger(settings.recordLimit, settings.phoneNumbers);
    this.telnyx = new TelnyxLedger(settings.recordLimit, randomUUID(), randomUUID());
    this.resend = new ResendMailbox(settings.recordLimit);
    this.postmark = new PostmarkLedger(settings.recordLimit, 23_000 + Math.floor(Math.random() * 1_000));
    this.line = new LineBotState(settings.recordLimit);
    this.whatsappCloud = new CloudLedger(settings.recordLimit, settings.phoneNumbers, credentials.whatsappCloud.phoneNumberId);
  }

  /** Sent messages oldest first; `to` also matches one recipient of a multi-recipient email. */
  sentMessages(filter: SentMessageFilter = {}): SentMessage[] {
    return this.messages
      .toArray()
      .filter(
        (m) =>
          (!filter.provider || m.provider === filter.provider) &&
          (!filter.channel || m.channel === filter.channel) &&
          (!filter.to || m.to === filter.to || (m.channel === 'email' && m.to.split(', ').includes(filter.to))),
      );
  }

  recordedRequests(provider?: SimProvider): RecordedRequest[] {
    const all = this.requests.toArray();
    return provider ? all.filter((r) => r.provider === provider) : all;
  }

  nextSeq(): number {
    return ++this.#seq;
  }

  reset(): void {
    this.tasks.cancelAll();
    this.faults.clear();
    this.requests.clear();
    this.messages.clear();
    this.twilio.clear();
    this.telnyx.clear();
    this.resend.clear();
    this.postmark.clear();
    this.line.clear();
    this.whatsappCloud.clear();
    this.elevenlabs.characterCount = 0;
    this.silenced.clear();
    this.clock.reset();
  }
}
