import type { Channel, WebhookRequest } from '@switchboard/sdk';
import type { RuntimeEvents } from '../events.js';
import type { WebhookPort } from '../ports.js';
import type { DriverSet } from './registry.js';
import { verifyWebhook } from './verify-webhook.js';

/** Checks provider webhooks with the channel's loaded driver, before anything crosses the bus. */
export class DriverWebhookPort implements WebhookPort {
  constructor(
    private readonly drivers: DriverSet,
    private readonly events: RuntimeEvents,
  ) {}

  readonly contentTypes = (channel: Channel): readonly string[] | undefined => {
    return this.drivers.for(channel)?.webhooks?.contentTypes;
  };

  readonly verify = (channel: Channel, request: WebhookRequest): Promise<void> => {
    return verifyWebhook(this.drivers.require(channel), request, this.events);
  };
}
