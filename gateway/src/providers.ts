import { demoPools, type DriverSpec, type Logger, type Settings } from '@switchboard/runtime';

/** The in-process provider simulator of demo mode, as far as the gateway needs it. */
export interface DemoSimulator {
  readonly url: string;
  gatewayUrl: string | undefined;
  close(): Promise<void>;
}

/** Drivers to load and, in demo mode, the simulator they talk to. */
export interface Providers {
  readonly specs: DriverSpec[];
  readonly simulator: DemoSimulator | undefined;
}

/** Imports a driver package by name, resolved from the gateway (the application that installs drivers). */
export const importPackage = (name: string): Promise<unknown> => import(name);

/**
 * Demo mode starts the provider simulator in-process and points the real drivers at it; otherwise
 * each provider whose credentials are set gets its driver. Either way the same driver code runs.
 */
export async function resolveProviders(settings: Settings, demoMode: boolean, logger: Logger): Promise<Providers> {
  if (demoMode) {
    const { startSimulator } = (await importPackage('@switchboard/provider-simulator')) as typeof import('@switchboard/provider-simulator');
    // Each demo LINE address is a bot the simulator hosts, so a push shows the address the agent was given.
    const simulator = await startSimulator({ host: '127.0.0.1', port: 0, logger: logger.child({ component: 'simulator' }), lineBotUserIds: demoPools().line });
    const c = simulator.credentials;
    return {
      simulator,
      specs: [
        { packageName: '@switchboard/driver-twilio', settings: { ...c.twilio, baseUrl: simulator.baseUrls.twilio } },
        { packageName: '@switchboard/driver-resend', settings: { ...c.resend, baseUrl: simulator.baseUrls.resend } },
        {
          packageName: '@switchboard/driver-line',
          settings: { channelAccessToken: c.line.channelAccessToken, channelSecret: c.line.channelSecret, baseUrl: simulator.baseUrls.line, bots: c.lineBots.slice(1) },
        },
        { packageName: '@switchboard/driver-elevenlabs', settings: { apiKey: c.elevenlabs.apiKey, baseUrl: simulator.baseUrls.elevenlabs } },
        { packageName: '@switchboard/driver-deepgram', settings: { apiKey: c.deepgram.apiKey, baseUrl: simulator.baseUrls.deepgram } },
      ],
    };
  }
  const specs: DriverSpec[] = [];
  const base = (url: string) => (url ? { baseUrl: url } : {});
  if (settings.TWILIO_ACCOUNT_SID && settings.TWILIO_AUTH_TOKEN) {
    specs.push({
      packageName: '@switchboard/driver-twilio',
      settings: { accountSid: settings.TWILIO_ACCOUNT_SID, authToken: settings.TWILIO_AUTH_TOKEN, ...base(settings.TWILIO_BASE_URL) },
    });
  }
  if (settings.RESEND_API_KEY && settings.RESEND_WEBHOOK_SECRET) {
    specs.push({
      packageName: '@switchboard/driver-resend',
      settings: { apiKey: settings.RESEND_API_KEY, webhookSecret: settings.RESEND_WEBHOOK_SECRET, ...base(settings.RESEND_BASE_URL) },
    });
  }
  if (settings.LINE_CHANNEL_ACCESS_TOKEN && settings.LINE_CHANNEL_SECRET) {
    specs.push({
      packageName: '@switchboard/driver-line',
      settings: { channelAccessToken: settings.LINE_CHANNEL_ACCESS_TOKEN, channelSecret: settings.LINE_CHANNEL_SECRET, ...base(settings.LINE_BASE_URL) },
    });
  }
  if (settings.ELEVENLABS_API_KEY) {
    specs.push({ packageName: '@switchboard/driver-elevenlabs', settings: { apiKey: settings.ELEVENLABS_API_KEY, ...base(settings.ELEVENLABS_BASE_URL) } });
  }
  if (settings.DEEPGRAM_API_KEY) {
    specs.push({ packageName: '@switchboard/driver-deepgram', settings: { apiKey: settings.DEEPGRAM_API_KEY, ...base(settings.DEEPGRAM_BASE_URL) } });
  }
  return { specs, simulator: undefined };
}
