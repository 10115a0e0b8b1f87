import type { Channel } from '@switchboard/sdk';
import type { Tariffs } from '../billing/tariffs.js';
import type { ContactPolicy } from '../compliance/contact-policy.js';
import type { DeliveryService } from '../delivery/delivery-service.js';
import type { Limiter } from '../limits/limiter.js';
import type { DriverSet } from '../drivers/registry.js';
import type { RuntimeEvents } from '../events.js';
import type { Logger } from '../logger.js';
import type { SecretBox } from '../secrets.js';
import type { Outbox } from '../outbox/outbox.js';
import type { RecentSends } from './recent-sends.js';
import type { ProviderRouter } from './routing.js';
import type { Driver } from '@switchboard/sdk';
import type { MessageRecord } from '../store/repositories/messages.js';

/** What the messaging operations work with. */
export interface MessagingContext {
  readonly drivers: DriverSet;
  readonly delivery: DeliveryService;
  readonly events: RuntimeEvents;
  readonly box: SecretBox;
  readonly logger: Logger;
  readonly tariffs: Tariffs;
  readonly limiter: Limiter;
  /** Public base URL of the gateway, for provider status callbacks. */
  publicBaseUrl(): string;
  readonly sendRetry: { attempts: number; baseDelayMs: number; timeoutMs: number };
  /** How long after its send an outbound message without a final status is recorded `unknown` (RECONCILE_BOUND_MS). */
  readonly reconcileBoundMs: number;
  /** Sends calling their provider in this process, journaled. */
  readonly outbox: Outbox;
  /** Messages sent from this process still without a final status, so their receipts need no read. */
  readonly recentSends: RecentSends;
  /** The step before every outbound message: the do-not-contact list, calling hours, consent. */
  readonly policy: Pick<ContactPolicy, 'check' | 'checkRules' | 'listCondition'>;
  /** Which providers a send may go to, in order, and their circuits. */
  readonly router: ProviderRouter;
}

/** The provider of the channel's driver, for the metrics' send outcomes by provider. */
export function providerOf(context: Pick<MessagingContext, 'drivers'>, channel: Channel): { provider?: string } {
  const name = context.drivers.for(channel)?.manifest.provider;
  return name === undefined ? {} : { provider: name };
}

/** The driver of the provider that sent or delivered a message (the channel's own when it is not recorded). */
export function driverOf(context: Pick<MessagingContext, 'drivers'>, message: Pick<MessageRecord, 'channel' | 'provider'>): Driver | undefined {
  return (message.provider ? context.drivers.ofProvider(message.provider) : undefined) ?? context.drivers.for(message.channel);
}
