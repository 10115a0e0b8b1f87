import type { Simulator } from '@switchboard/provider-simulator';

/** An env file for a server started from one (a Deployment): Twilio then Telnyx for SMS on the simulator, Telnyx first to UK numbers. */
export function twoSmsProvidersEnv(sim: Pick<Simulator, 'credentials' | 'baseUrls'>): string {
  const c = sim.credentials;
  return [
    'DEMO_MODE=false',
    `TWILIO_ACCOUNT_SID=${c.twilio.accountSid}`,
    `TWILIO_AUTH_TOKEN=${c.twilio.authToken}`,
    `TWILIO_BASE_URL=${sim.baseUrls.twilio}`,
    'DRIVERS=@switchboard/driver-telnyx',
    `DRIVER_TELNYX_API_KEY=${c.telnyx.apiKey}`,
    `DRIVER_TELNYX_PUBLIC_KEY=${c.telnyx.publicKey}`,
    `DRIVER_TELNYX_BASE_URL=${sim.baseUrls.telnyx}`,
    'SMS_DRIVER=twilio,telnyx',
    "SMS_ROUTES='+44=telnyx,twilio'",
    // Telnyx's driver offers voice too: calls stay with Twilio.
    'VOICE_DRIVER=twilio',
    'POOL_PHONE_NUMBERS=+12025550100,telnyx:+15555550102',
    '',
  ].join('\n');
}
