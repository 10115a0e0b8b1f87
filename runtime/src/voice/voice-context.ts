import type { Tariffs } from '../billing/tariffs.js';
import type { ContactPolicy } from '../compliance/contact-policy.js';
import type { DeliveryService } from '../delivery/delivery-service.js';
import type { RuntimeEvents } from '../events.js';
import type { Limiter } from '../limits/limiter.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/store.js';
import type { CallMessages } from './call-messages.js';
import type { VoiceMessageStore } from './voice-messages.js';
import type { VoiceService } from './voice-service.js';

/** What voice operations work with, besides what each run's context gives them. */
export interface VoiceContext {
  readonly voice: VoiceService;
  /** Messages calls took for their agents, stored and delivered here. */
  readonly messages: CallMessages;
  readonly limiter: Limiter;
  readonly tariffs: Tariffs;
  readonly delivery: DeliveryService;
  readonly voiceMessages: VoiceMessageStore;
  /** Where a call's inbox entries are announced (after their commit). */
  readonly events: RuntimeEvents;
  readonly logger: Logger;
  publicBaseUrl(): string;
  /** How long after its start a call without a final status is recorded `unknown` (RECONCILE_BOUND_MS). */
  readonly reconcileBoundMs: number;
  /** The step before every placed call: the do-not-contact list, calling hours, consent. */
  readonly policy: Pick<ContactPolicy, 'check'>;
}

/** The repositories a call's records are kept in: its log row, its inbox entries, its usage. */
export const CALL_RECORDS = ['db', 'calls', 'inbox', 'usage'] as const;
export type CallStore = Pick<Store, (typeof CALL_RECORDS)[number]>;
