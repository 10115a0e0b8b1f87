import { simulatorDriverSpecs } from '@switchboard/gateway';
import type { DriverSpec } from '@switchboard/runtime';
import type { Simulator } from '@switchboard/provider-simulator';

/** Twilio then Telnyx for SMS, Telnyx first to UK numbers; a provider's circuit opens after 3 failures; calls stay with Twilio (both offer voice). */
export const TWO_SMS_PROVIDERS = { SMS_DRIVER: 'twilio,telnyx', SMS_ROUTES: '+44=telnyx,twilio', PROVIDER_CIRCUIT_FAILURES: 3, VOICE_DRIVER: 'twilio' } as const;

/** The built-in drivers and Telnyx's, all on the simulator; Twilio at `twilioBaseUrl` when a test puts a proxy in its way. */
export function twoSmsProviders(sim: Simulator, twilioBaseUrl = sim.baseUrls.twilio): DriverSpec[] {
  return [
    ...simulatorDriverSpecs(sim).map((spec) => (spec.packageName === '@switchboard/driver-twilio' ? { ...spec, settings: { ...spec.settings, baseUrl: twilioBaseUrl } } : spec)),
    { packageName: '@switchboard/driver-telnyx', settings: { apiKey: sim.credentials.telnyx.apiKey, publicKey: sim.credentials.telnyx.publicKey, baseUrl: sim.baseUrls.telnyx } },
  ];
}
