#!/usr/bin/env node
// switchboard-simulator: runs the provider simulator on its own, for demos and manual testing.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startSimulator } from './simulator.js';
import type { SimulatorCredentials, SimulatorLogger } from './types.js';

const USAGE = `Usage: switchboard-simulator [options]

  --port <n>                  port to listen on (default 4010; 0 for any free port)
  --host <addr>               interface to listen on (default 127.0.0.1)
  --gateway-url <url>         Switchboard's PUBLIC_BASE_URL, where inbound webhooks go (signed
                              for that URL; without it, POST /_sim/inbound/* needs a url)
  --credentials <file>        JSON file with fixed credentials (SimulatorCredentials, any subset)
  --no-status-callbacks       do not post Twilio message status callbacks
  --status-callback-delay <ms>  delay before each status callback (default 50)
  --record-limit <n>          requests and messages kept (default 10000)
  --json                      print the URL and credentials as one JSON line
  -h, --help                  show this help`;

const consoleLogger: SimulatorLogger = {
  info: (o, m) => console.log(m ?? '', JSON.stringify(o)),
  warn: (o, m) => console.warn(m ?? '', JSON.stringify(o, (_k, v: unknown) => (v instanceof Error ? v.message : v))),
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '4010' },
      host: { type: 'string', default: '127.0.0.1' },
      'gateway-url': { type: 'string' },
      credentials: { type: 'string' },
      'no-status-callbacks': { type: 'boolean', default: false },
      'status-callback-delay': { type: 'string' },
      'record-limit': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const credentials = values.credentials ? (JSON.parse(readFileSync(values.credentials, 'utf8')) as Partial<SimulatorCredentials>) : undefined;
  const sim = await startSimulator({
    port: Number(values.port),
    host: values.host,
    ...(values['gateway-url'] ? { gatewayUrl: values['gateway-url'] } : {}),
    ...(credentials ? { credentials } : {}),
    statusCallbacks: !values['no-status-callbacks'],
    ...(values['status-callback-delay'] ? { statusCallbackDelayMs: Number(values['status-callback-delay']) } : {}),
    ...(values['record-limit'] ? { recordLimit: Number(values['record-limit']) } : {}),
    logger: consoleLogger,
  });
  if (values.json) {
    console.log(JSON.stringify({ url: sim.url, gatewayUrl: sim.gatewayUrl ?? null, baseUrls: sim.baseUrls, credentials: sim.credentials }));
  } else {
    const c = sim.credentials;
    console.log(`Switchboard provider simulator listening on ${sim.url}
  twilio      ${sim.baseUrls.twilio}   accountSid=${c.twilio.accountSid} authToken=${c.twilio.authToken}
  telnyx      ${sim.baseUrls.telnyx}   apiKey=${c.telnyx.apiKey} publicKey=${c.telnyx.publicKey}
  resend      ${sim.baseUrls.resend}   apiKey=${c.resend.apiKey} webhookSecret=${c.resend.webhookSecret}
  postmark    ${sim.baseUrls.postmark}   serverToken=${c.postmark.serverToken} webhook Basic auth=${c.postmark.webhookUsername}:${c.postmark.webhookPassword}
  line        ${sim.baseUrls.line}     channelAccessToken=${c.line.channelAccessToken}
              channelSecret=${c.line.channelSecret} botUserId=${c.line.botUserId}
  elevenlabs  ${sim.baseUrls.elevenlabs}   apiKey=${c.elevenlabs.apiKey}
  openai      ${sim.baseUrls.openai}   apiKey=${c.openai.apiKey}
  whatsapp-cloud ${sim.baseUrls.whatsappCloud}   accessToken=${c.whatsappCloud.accessToken} appSecret=${c.whatsappCloud.appSecret}
              phoneNumberId=${c.whatsappCloud.phoneNumberId} wabaId=${c.whatsappCloud.wabaId} verifyToken=${c.whatsappCloud.verifyToken}
  control     ${sim.url}/_sim/info
  webhooks to ${sim.gatewayUrl ?? 'nowhere yet: pass --gateway-url <Switchboard PUBLIC_BASE_URL> for POST /_sim/inbound/*'}`);
  }
  const stop = () => {
    void sim.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error((err as Error).message);
  process.exit(1);
});
