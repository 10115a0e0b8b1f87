import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProviderApi, SimulatorState } from '../simulator-state.js';
import type { FaultDecision } from '../faults.js';
import { BodyTooLargeError, parseBody, readBody, type SimRequest } from './sim-request.js';
import { jsonResponse, writeSimResponse, type SimResponse } from './sim-response.js';

const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Answers `/_sim/...` requests (the control API). */
export type ControlHandler = (req: SimRequest) => Promise<SimResponse>;

type Route = { api: ProviderApi; path: string } | { control: true; path: string };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The HTTP entry point: picks the provider by path prefix (`/twilio`, `/resend`, `/line`,
 * `/elevenlabs`, `/_sim`), applies faults, lets the provider answer, and records the exchange.
 */
export function createRequestListener(state: SimulatorState, apis: ProviderApi[], control: ControlHandler) {
  const byPrefix = new Map(apis.map((api) => [`/${api.provider}`, api]));
  const line = byPrefix.get('/line');

  function route(path: string): Route | undefined {
    const slash = path.indexOf('/', 1);
    const head = slash === -1 ? path : path.slice(0, slash);
    const rest = slash === -1 ? '/' : path.slice(slash);
    if (head === '/_sim') return { control: true, path: rest };
    const api = byPrefix.get(head);
    if (api) return { api, path: rest };
    // @line/bot-sdk v10 resolves '/v2/bot/...' against its baseURL, dropping any path prefix.
    if (head === '/v2' && line) return { api: line, path };
    return undefined;
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const query = new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1));
    const target = route(path);
    if (!target) {
      req.resume();
      writeSimResponse(res, jsonResponse(404, { error: `No simulated provider at ${path}; use /twilio, /telnyx, /resend, /postmark, /line, /elevenlabs, /whatsapp-cloud, /openai or /_sim`, code: 'NOT_FOUND' }));
      return;
    }
    let rawBody: Buffer;
    try {
      rawBody = await readBody(req, MAX_BODY_BYTES);
    } catch (err) {
      if (err instanceof BodyTooLargeError) writeSimResponse(res, jsonResponse(413, { error: err.message, code: 'PAYLOAD_TOO_LARGE' }));
      else res.destroy();
      return;
    }
    const method = req.method ?? 'GET';
    const parsed = parseBody(req.headers['content-type'], rawBody);
    const simRequest: SimRequest = { method, path: target.path, query, headers: req.headers, rawBody, body: parsed.body };
    if (parsed.error !== undefined) simRequest.bodyError = parsed.error;

    if ('control' in target) {
      writeSimResponse(res, await control(simRequest));
      return;
    }

    const { api } = target;
    const fault: FaultDecision | undefined = state.faults.match(api.provider, method, path);
    const record = (status: number, faultName?: string) =>
      state.requests.push({
        seq: state.nextSeq(),
        provider: api.provider,
        method,
        path,
        query: Object.fromEntries(query),
        headers: req.headers,
        body: parsed.body,
        status,
        ...(faultName ? { fault: faultName } : {}),
        at: new Date(),
      });

    if (fault && fault.latencyMs > 0) await sleep(fault.latencyMs);
    if (fault?.timeout) {
      // Held open on purpose: the client's own timeout (or close()) ends it.
      record(0, 'timeout');
      return;
    }
    let response: SimResponse;
    let faultName: string | undefined;
    if (fault?.status !== undefined) {
      response = api.faultResponse(fault.status, fault.retryAfterSeconds ?? 1);
      faultName = 'status';
    } else {
      response = await api.handle(simRequest);
      if (fault && fault.latencyMs > 0) faultName = 'latency';
    }
    if (fault?.hangAfterAccepting) {
      // Handled (the message exists at the provider), and the answer is never sent: the client's time-out ends it.
      record(response.status, 'hang-after-accepting');
      return;
    }
    record(response.status, faultName);
    writeSimResponse(res, response);
  }

  return (req: IncomingMessage, res: ServerResponse): void => {
    serve(req, res).catch((err: unknown) => {
      state.logger.warn({ err, url: req.url }, 'simulator: request failed');
      if (!res.headersSent && !res.destroyed) writeSimResponse(res, jsonResponse(500, { error: 'Simulator failure', code: 'INTERNAL' }));
    });
  };
}
