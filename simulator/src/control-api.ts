import type { ControlHandler } from './http/request-listener.js';
import type { SimRequest } from './http/sim-request.js';
import { jsonResponse, type SimResponse } from './http/sim-response.js';
import { phoneControl } from './phone/phone-control.js';
import type { SimulatorPhone } from './phone/phone-types.js';
import type { SimulatorState } from './simulator-state.js';
import type {
  InboundEmailEventOptions,
  InboundEmailOptions,
  InboundCloudMessageOptions,
  InboundLineOptions,
  InboundMessageStatusOptions,
  InboundPostmarkEmailOptions,
  InboundPostmarkEventOptions,
  InboundTelnyxMessageOptions,
  InboundTelnyxStatusOptions,
  InboundTelnyxCallEventOptions,
  InboundResult,
  InboundSenders,
  InboundTwilioMessageOptions,
} from './inbound-types.js';
import type {
  FaultRule,
  SimChannel,
  SimProvider,
  Simulator,
} from './types.js';
import { MissingWebhookTargetError } from './webhook-delivery.js';

const PROVIDERS: ReadonlySet<string> = new Set(['twilio', 'telnyx', 'resend', 'postmark', 'line', 'elevenlabs', 'whatsapp-cloud', 'openai']);
const CHANNELS: ReadonlySet<string> = new Set(['sms', 'whatsapp', 'email', 'line']);

/** What `GET /_sim/info` reports: where each provider is served and with which credentials. */
export interface SimulatorAddress {
  url: string;
  baseUrls: Simulator['baseUrls'];
}

function badRequest(error: string): SimResponse {
  return jsonResponse(400, { error, code: 'BAD_REQUEST' });
}

function objectBody(req: SimRequest): Record<string, unknown> | undefined {
  return typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : undefined;
}

/** Inbound senders by control path; JSON dates arrive as strings. */
function inboundRoutes(inbound: InboundSenders): Record<string, (body: Record<string, unknown>) => Promise<InboundResult>> {
  const withDate = (body: Record<string, unknown>) =>
    typeof body['timestamp'] === 'string' || typeof body['timestamp'] === 'number' ? { ...body, timestamp: new Date(body['timestamp']) } : body;
  // Required fields are checked against REQUIRED_FIELDS before a sender runs.
  return {
    sms: (b) => inbound.sms(b as unknown as InboundTwilioMessageOptions),
    whatsapp: (b) => inbound.whatsapp(b as unknown as InboundTwilioMessageOptions),
    'message-status': (b) => inbound.messageStatus(b as unknown as InboundMessageStatusOptions),
    'telnyx-sms': (b) => inbound.telnyxSms(withDate(b) as unknown as InboundTelnyxMessageOptions),
    'telnyx-status': (b) => inbound.telnyxStatus(withDate(b) as unknown as InboundTelnyxStatusOptions),
    'telnyx-call-event': (b) => inbound.telnyxCallEvent(b as unknown as InboundTelnyxCallEventOptions),
    email: (b) => inbound.email(withDate(b) as unknown as InboundEmailOptions),
    'email-event': (b) => inbound.emailEvent(withDate(b) as unknown as InboundEmailEventOptions),
    'postmark-email': (b) => inbound.postmarkEmail(b as unknown as InboundPostmarkEmailOptions),
    'postmark-event': (b) => inbound.postmarkEvent(b as unknown as InboundPostmarkEventOptions),
    line: (b) => inbound.line(b as unknown as InboundLineOptions),
    'whatsapp-cloud': (b) => inbound.whatsappCloud(b as unknown as InboundCloudMessageOptions),
  };
}

const REQUIRED_FIELDS: Record<string, string[]> = {
  sms: ['from', 'to', 'body'],
  whatsapp: ['from', 'to', 'body'],
  'message-status': ['messageSid', 'status'],
  'telnyx-sms': ['from', 'to', 'body'],
  'telnyx-status': ['messageId', 'status'],
  'telnyx-call-event': ['eventType'],
  'whatsapp-cloud': ['from', 'to', 'body'],
  email: ['from', 'to', 'subject', 'text'],
  'email-event': ['type', 'emailId'],
  'postmark-email': ['from', 'to', 'subject', 'text'],
  'postmark-event': ['type', 'messageId'],
  line: ['userId', 'text'],
};

/**
 * The control API under `/_sim/`: read what drivers sent, inject faults, reset, and make the
 * providers send webhooks to Switchboard (demo mode and curl use it).
 */
export function controlApi(
  state: SimulatorState,
  inbound: InboundSenders,
  address: () => SimulatorAddress,
  /** What `POST /_sim/reset` does: the same as `sim.reset()`. */
  reset: () => void,
  phone?: SimulatorPhone,
): ControlHandler {
  const senders = inboundRoutes(inbound);
  const phoneRoutes = phone ? phoneControl(phone, state.logger) : undefined;
  return async (req) => {
    const { method, path, query } = req;
    if (phoneRoutes && path.startsWith('/phone/')) return phoneRoutes(req, path.slice('/phone'.length));
    if (method === 'GET' && (path === '/' || path === '/info')) {
      return jsonResponse(200, { ...address(), gatewayUrl: state.gatewayUrl ?? null, credentials: state.credentials });
    }
    if (method === 'GET' && path === '/messages') {
      const provider = query.get('provider');
      const channel = query.get('channel');
      if (provider && !PROVIDERS.has(provider)) return badRequest(`Unknown provider "${provider}"`);
      if (channel && !CHANNELS.has(channel)) return badRequest(`Unknown channel "${channel}"`);
      const messages = state.sentMessages({
        ...(provider ? { provider: provider as SimProvider } : {}),
        ...(channel ? { channel: channel as SimChannel } : {}),
        ...(query.get('to') ? { to: query.get('to')! } : {}),
      });
      return jsonResponse(200, { messages, count: messages.length });
    }
    if (method === 'GET' && path === '/requests') {
      const provider = query.get('provider');
      if (provider && !PROVIDERS.has(provider)) return badRequest(`Unknown provider "${provider}"`);
      const limit = Number.parseInt(query.get('limit') ?? '100', 10);
      const all = state.recordedRequests(provider ? (provider as SimProvider) : undefined);
      const requests = Number.isFinite(limit) && limit > 0 ? all.slice(-limit) : all;
      return jsonResponse(200, { requests, count: requests.length, total: all.length });
    }
    if (method === 'GET' && path === '/calls') return jsonResponse(200, { calls: state.twilio.calls.values() });
    if (path === '/faults') {
      if (method === 'GET') return jsonResponse(200, { faults: state.faults.list() });
      if (method === 'DELETE') {
        state.faults.clear();
        return jsonResponse(200, { ok: true, faults: [] });
      }
      if (method === 'POST') {
        const body = req.body;
        const rules = Array.isArray(body) ? body : [body];
        if (body === undefined || req.bodyError !== undefined) return badRequest('Send a fault rule (or an array of rules) as JSON');
        try {
          for (const rule of rules) state.faults.add(rule as FaultRule);
        } catch (err) {
          return badRequest((err as Error).message);
        }
        return jsonResponse(201, { ok: true, faults: state.faults.list() });
      }
    }
    if (method === 'POST' && path === '/silence') {
      const body = objectBody(req);
      const provider = body?.['provider'];
      const outcome = body?.['outcome'];
      if (provider !== 'twilio' && provider !== 'telnyx' && provider !== 'resend') return badRequest('Send {"provider": "twilio" | "telnyx" | "resend", "outcome": "delivered" | "undelivered" | "sent" | null}');
      if (outcome !== null && outcome !== 'delivered' && outcome !== 'undelivered' && outcome !== 'sent') return badRequest('outcome must be delivered, undelivered, sent or null (callbacks again)');
      if (outcome === null) state.silenced.delete(provider);
      else state.silenced.set(provider, outcome);
      return jsonResponse(200, { ok: true, silenced: Object.fromEntries(state.silenced) });
    }
    if (path === '/clock' && (method === 'GET' || method === 'POST')) {
      if (method === 'POST') {
        const advanceMs = objectBody(req)?.['advanceMs'];
        if (typeof advanceMs !== 'number' || !Number.isFinite(advanceMs) || advanceMs < 0) return badRequest('Send {"advanceMs": <milliseconds to move the clock forward, >= 0>}');
        state.clock.advance(advanceMs);
      }
      return jsonResponse(200, { now: state.clock.now().toISOString(), offsetMs: state.clock.offsetMs });
    }
    if (method === 'POST' && path === '/reset') {
      reset();
      return jsonResponse(200, { ok: true });
    }
    const inboundKind = /^\/inbound\/([a-z-]+)$/.exec(path)?.[1];
    if (method === 'POST' && inboundKind) {
      const send = senders[inboundKind];
      if (!send) return jsonResponse(404, { error: `Unknown inbound kind "${inboundKind}"; use ${Object.keys(senders).join(', ')}`, code: 'NOT_FOUND' });
      const body = objectBody(req);
      if (!body) return badRequest('Send the inbound fields as a JSON object');
      const missing = (REQUIRED_FIELDS[inboundKind] ?? []).filter((f) => typeof body[f] !== 'string' || body[f] === '');
      if (missing.length > 0) return badRequest(`Missing ${missing.join(', ')}`);
      try {
        return jsonResponse(200, await send(body));
      } catch (err) {
        if (err instanceof MissingWebhookTargetError) return badRequest(err.message);
        state.logger.warn({ err, inboundKind }, 'simulator: inbound delivery failed');
        return jsonResponse(502, { error: `Could not deliver the webhook: ${(err as Error).message}`, code: 'GATEWAY_UNREACHABLE' });
      }
    }
    return jsonResponse(404, { error: `No control route ${method} /_sim${path}`, code: 'NOT_FOUND' });
  };
}
