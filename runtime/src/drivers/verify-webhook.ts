import { ErrorCodes, SwitchboardError, hasErrorCode, type Driver, type WebhookRequest } from '@switchboard/sdk';
import type { RuntimeEvents } from '../events.js';

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
    events.emit('webhookRejected', { provider: driver.manifest.provider, reason: 'signature' });
    throw hasErrorCode(err, ErrorCodes.SIGNATURE_INVALID) ? err : new SwitchboardError(ErrorCodes.SIGNATURE_INVALID, 'The signature could not be checked.', { cause: err });
  }
}
