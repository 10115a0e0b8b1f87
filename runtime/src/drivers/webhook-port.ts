import { CHANNEL_SPECS, ErrorCodes, SwitchboardError, hasErrorCode, type Channel, type Driver, type WebhookHandshakeAnswer, type WebhookRequest } from '@switchboard/sdk';
import type { RuntimeEvents } from '../events.js';
import type { WebhookPort } from '../ports.js';
import type { WebhookAnswer } from '../protocol/operations.js';
import type { DriverSet } from './registry.js';

/** A webhook whose signature was checked: the provider that signed it and the request as it came. */
export interface VerifiedWebhook {
  readonly agentId: string;
  readonly channel: Channel;
  readonly provider: string;
  readonly request: WebhookRequest;
}

/** What takes a verified webhook (messaging/inbound.ts, `EdgeInbound`): stores what it brings and answers as its provider expects. */
export interface VerifiedWebhooks {
  receive(webhook: VerifiedWebhook): Promise<WebhookAnswer>;
}

/**
 * Takes provider webhooks: checks them with the channel's loaded drivers, then stores what they bring
 * here, at the edge (messaging/inbound.ts). A channel served by several providers takes each one's
 * webhooks at the same URL: the first driver whose verifier accepts the signature is the provider that posted it.
 */
export class DriverWebhookPort implements WebhookPort {
  constructor(
    private readonly drivers: DriverSet,
    private readonly events: RuntimeEvents,
    private readonly inbound: VerifiedWebhooks,
  ) {}

  readonly receive = async (channel: Channel, agentId: string, request: WebhookRequest): Promise<WebhookAnswer> => {
    const provider = await this.verify(channel, request);
    return this.inbound.receive({ agentId, channel, provider, request });
  };

  readonly contentTypes = (channel: Channel): readonly string[] | undefined => {
    // A driver that declares none takes the channel's default (Twilio's form posts on sms, whatsapp and
    // voice): beside one that declares JSON (the Cloud API's), both kinds are taken at the same URL.
    const types = this.drivers.ordered(channel).flatMap((d) => (d.webhooks ? (d.webhooks.contentTypes ?? CHANNEL_SPECS[channel].webhook.contentTypes) : []));
    return types.length === 0 ? undefined : [...new Set(types)];
  };

  /** The first acceptance among the channel's drivers that answer the check, else the first refusal. */
  readonly handshake = (channel: Channel, request: WebhookRequest): WebhookHandshakeAnswer | undefined => {
    let refusal: WebhookHandshakeAnswer | undefined;
    for (const driver of this.drivers.ordered(channel)) {
      const answer = driver.webhooks?.handshake?.(request);
      if (answer && answer.status >= 200 && answer.status < 300) return answer;
      refusal ??= answer;
    }
    return refusal;
  };

  /** The provider that signed the request; throws SIGNATURE_INVALID (counted) unless one of the channel's providers did. */
  async verify(channel: Channel, request: WebhookRequest): Promise<string> {
    const drivers = this.drivers.ordered(channel);
    if (drivers.length <= 1) {
      const driver = this.drivers.require(channel);
      await verifyWebhook(driver, request, this.events);
      return driver.manifest.provider;
    }
    let refusal: unknown;
    for (const driver of drivers) {
      try {
        if (!driver.webhooks) continue;
        await driver.webhooks.verify(request);
        return driver.manifest.provider;
      } catch (err) {
        refusal ??= err;
      }
    }
    // Signed by none of them: counted once, as the channel's own provider's refusal.
    throw signatureRefused(drivers[0]!, refusal, this.events);
  }
}

/**
 * Checks a provider webhook's signature on its raw bytes with the driver's verifier. A mismatch, or a
 * check that throws, is SIGNATURE_INVALID (never fail open) and is counted as a rejected webhook.
 * The gateway runs it before a webhook crosses the bus, so unsigned bodies never reach a runtime node.
 */
export async function verifyWebhook(driver: Driver, request: WebhookRequest, events: RuntimeEvents): Promise<void> {
  const capability = driver.webhooks;
  if (!capability) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `The ${driver.manifest.provider} driver takes no webhooks.`);
  try {
    await capability.verify(request);
  } catch (err) {
    throw signatureRefused(driver, err, events);
  }
}

/** A refused signature, counted as the driver's provider's rejected webhook: SIGNATURE_INVALID, with the verifier's error as its cause. */
function signatureRefused(driver: Driver, err: unknown, events: RuntimeEvents): unknown {
  events.emit('webhookRejected', { provider: driver.manifest.provider, reason: 'signature' });
  return hasErrorCode(err, ErrorCodes.SIGNATURE_INVALID) ? err : new SwitchboardError(ErrorCodes.SIGNATURE_INVALID, 'The signature could not be checked.', { cause: err });
}
