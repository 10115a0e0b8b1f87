import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { controlApi, type SimulatorAddress } from './control-api.js';
import { resolveCredentials } from './credentials.js';
import { elevenLabsApi } from './elevenlabs/elevenlabs-api.js';
import { simulatedDeepgram } from './deepgram/simulated-deepgram.js';
import { createRequestListener } from './http/request-listener.js';
import { inboundSenders } from './inbound.js';
import { lineApi } from './line/line-api.js';
import { createSimulatorPhone } from './phone/simulator-phone.js';
import { postmarkApi } from './postmark/postmark-api.js';
import { resendApi } from './resend/resend-api.js';
import { SimulatorState, type SimulatorSettings } from './simulator-state.js';
import { telnyxApi } from './telnyx/telnyx-api.js';
import { twilioApi } from './twilio/twilio-api.js';
import { cloudApi } from './whatsapp-cloud/cloud-api.js';
import { openAiApi } from './openai/openai-api.js';
import type { Simulator, SimulatorLogger, SimulatorOptions } from './types.js';

const SILENT: SimulatorLogger = { info() {}, warn() {} };
const DEFAULT_PHONE_NUMBERS = ['+15555550100', '+15555550101', '+15555550102'];

function settingsOf(options: SimulatorOptions): SimulatorSettings {
  const recordLimit = options.recordLimit ?? 10_000;
  if (!Number.isInteger(recordLimit) || recordLimit < 1) throw new RangeError(`recordLimit must be a positive integer, got ${recordLimit}`);
  return {
    statusCallbacks: options.statusCallbacks ?? true,
    statusCallbackDelayMs: options.statusCallbackDelayMs ?? 50,
    recordLimit,
    phoneNumbers: options.phoneNumbers ?? DEFAULT_PHONE_NUMBERS,
    emailDomains: options.emailDomains ?? ['switchboard.test'],
  };
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Starts the provider simulator: one HTTP server speaking Twilio, Telnyx, Resend, Postmark, LINE, ElevenLabs, Deepgram, the WhatsApp Cloud API and OpenAI's speech API. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const state = new SimulatorState(resolveCredentials(options.credentials, options.lineBotUserIds), settingsOf(options), options.logger ?? SILENT, options.gatewayUrl);
  const inbound = inboundSenders(state);
  const phone = createSimulatorPhone(state, options.phone);
  let address: SimulatorAddress | undefined;
  const deepgram = simulatedDeepgram(state);
  const apis = [twilioApi(state), telnyxApi(state), resendApi(state), postmarkApi(state), lineApi(state), elevenLabsApi(state), deepgram.api, cloudApi(state), openAiApi(state)];
  // Live calls hang up (no callbacks), then everything recorded is forgotten.
  const reset = () => {
    phone.reset();
    state.reset();
    deepgram.reset();
  };
  const server = createServer(createRequestListener(state, apis, controlApi(state, inbound, () => address!, reset, phone)));
  server.keepAliveTimeout = 30_000;
  server.on('upgrade', deepgram.upgrade);
  const { port } = await listen(server, options.port ?? 0, host);

  const wildcard = host === '0.0.0.0' || host === '::';
  const urlHost = wildcard ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}`;
  const baseUrls = { twilio: `${url}/twilio`, telnyx: `${url}/telnyx`, resend: `${url}/resend`, postmark: `${url}/postmark`, line: `${url}/line`, elevenlabs: `${url}/elevenlabs`, deepgram: `${url}/deepgram`, whatsappCloud: `${url}/whatsapp-cloud`, openai: `${url}/openai/v1` };
  address = { url, baseUrls };

  let closing: Promise<void> | undefined;
  return {
    url,
    baseUrls,
    credentials: state.credentials,
    get gatewayUrl() {
      return state.gatewayUrl;
    },
    set gatewayUrl(value: string | undefined) {
      state.gatewayUrl = value;
    },
    requests: (provider) => state.recordedRequests(provider),
    messages: (filter) => state.sentMessages(filter),
    calls: () => state.twilio.calls.values(),
    faults: {
      add: (rule) => state.faults.add(rule),
      clear: () => state.faults.clear(),
      list: () => state.faults.list(),
    },
    silence(provider, outcome) {
      if (outcome === undefined) state.silenced.delete(provider);
      else state.silenced.set(provider, outcome);
    },
    clock: { now: () => state.clock.now(), advance: (ms) => state.clock.advance(ms) },
    reset,
    inbound,
    whatsappCloud: {
      subscribe(url, phoneNumber) {
        const number = phoneNumber ? state.whatsappCloud.byNumber(phoneNumber) : state.whatsappCloud.numbers.get(state.credentials.whatsappCloud.phoneNumberId);
        if (!number) throw new TypeError(`${phoneNumber ?? 'The first phone number'} is not a business number of the simulated WhatsApp account`);
        if (url === undefined) delete number.callbackUrl;
        else number.callbackUrl = url;
      },
    },
    phone,
    deepgram: deepgram.facade,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        state.tasks.stop();
        phone.close();
        deepgram.close();
        server.close((err) => (err ? reject(err) : resolve()));
        // Requests held open by timeout faults (and idle keep-alive sockets) end now.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
