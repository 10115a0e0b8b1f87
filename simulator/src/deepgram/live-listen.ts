import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { SimResponse } from '../http/sim-response.js';
import type { SimulatorState } from '../simulator-state.js';
import { checkToken, deepgramError, deepgramFault } from './deepgram-errors.js';
import { deepgramOf } from './deepgram-state.js';
import { ListenSession, type ListenOptions } from './listen-session.js';

/** Where the simulated Deepgram takes WebSocket upgrades. */
export const LISTEN_PATH = '/deepgram/v1/listen';

const SAMPLE_RATES = new Set([8000, 16000, 22050, 24000, 32000, 44100, 48000]);

/** Handles `Upgrade` requests for `/deepgram/v1/listen`; returns false for any other path. */
export interface DeepgramLive {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Closes open sessions (simulator shutdown). */
  close(): void;
}

/**
 * Deepgram's live transcription endpoint: checks `Authorization: Token <key>` and the query as
 * Deepgram does (answering a refused upgrade with an HTTP error and `dg-error`), applies fault
 * rules for provider `deepgram`, records the request, then runs a {@link ListenSession}.
 */
export function deepgramLive(state: SimulatorState): DeepgramLive {
  const server = new WebSocketServer({ noServer: true, perMessageDeflate: false });

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, path: string, query: URLSearchParams): Promise<void> {
    const record = (status: number, fault?: string) =>
      state.requests.push({
        seq: state.nextSeq(),
        provider: 'deepgram',
        method: req.method ?? 'GET',
        path,
        query: Object.fromEntries(query),
        headers: req.headers,
        body: undefined,
        status,
        ...(fault ? { fault } : {}),
        at: new Date(),
      });
    const fault = state.faults.match('deepgram', req.method ?? 'GET', path);
    if (fault && fault.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
    if (fault?.timeout) {
      record(0, 'timeout');
      return; // held open until the client gives up or the simulator closes
    }
    const refusal =
      fault?.status !== undefined
        ? deepgramFault(fault.status, fault.retryAfterSeconds ?? 1)
        : (checkToken(req.headers.authorization, state.credentials.deepgram.apiKey, req.headers['sec-websocket-protocol']) ?? checkQuery(query));
    if (refusal) {
      record(refusal.status, fault?.status !== undefined ? 'status' : undefined);
      refuse(socket, refusal);
      return;
    }
    const options = listenOptions(query);
    server.handleUpgrade(req, socket, head, (ws) => {
      record(101, fault && fault.latencyMs > 0 ? 'latency' : undefined);
      deepgramOf(state).sessions.push(new ListenSession(ws, options, deepgramOf(state).phrases).record);
    });
  }

  return {
    handleUpgrade(req, socket, head) {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = q === -1 ? url : url.slice(0, q);
      if (path !== LISTEN_PATH) return false;
      upgrade(req, socket, head, path, new URLSearchParams(q === -1 ? '' : url.slice(q + 1))).catch((err: unknown) => {
        state.logger.warn({ err }, 'simulator: deepgram upgrade failed');
        socket.destroy();
      });
      return true;
    },
    close() {
      for (const client of server.clients) client.terminate();
      server.close();
    },
  };
}

/** Deepgram's 400 for parameters it cannot honour; undefined when the query is usable. */
function checkQuery(query: URLSearchParams): SimResponse | undefined {
  const encoding = query.get('encoding');
  if (encoding === null) return deepgramError(400, 'Bad Request', 'The simulator transcribes raw audio only: give encoding=mulaw or encoding=linear16 and sample_rate.');
  if (encoding !== 'mulaw' && encoding !== 'linear16') return deepgramError(400, 'Bad Request', `Unsupported encoding: ${encoding}. The simulator takes mulaw or linear16.`);
  const sampleRate = Number(query.get('sample_rate'));
  if (!SAMPLE_RATES.has(sampleRate)) return deepgramError(400, 'Bad Request', 'sample_rate is required with a raw encoding and must be a standard rate (8000, 16000, ...).');
  const channels = query.get('channels');
  if (channels !== null && channels !== '1') return deepgramError(400, 'Bad Request', 'The simulator transcribes mono audio only: channels=1.');
  const endpointing = query.get('endpointing');
  if (endpointing !== null && endpointing !== 'false' && endpointing !== 'true' && !/^\d+$/.test(endpointing)) {
    return deepgramError(400, 'Bad Request', `Invalid endpointing value: ${endpointing}`);
  }
  const utteranceEnd = query.get('utterance_end_ms');
  if (utteranceEnd !== null && !/^\d+$/.test(utteranceEnd)) return deepgramError(400, 'Bad Request', `Invalid utterance_end_ms value: ${utteranceEnd}`);
  return undefined;
}

function listenOptions(query: URLSearchParams): ListenOptions {
  const flag = (name: string): boolean => query.get(name) === 'true';
  const endpointing = query.get('endpointing');
  const utteranceEnd = query.get('utterance_end_ms');
  return {
    encoding: query.get('encoding') as ListenOptions['encoding'],
    sampleRate: Number(query.get('sample_rate')),
    model: query.get('model') ?? 'base',
    language: query.get('language') ?? 'en',
    interimResults: flag('interim_results'),
    endpointing: endpointing === 'false' ? false : endpointing === null || endpointing === 'true' ? 10 : Number(endpointing),
    ...(utteranceEnd !== null ? { utteranceEndMs: Number(utteranceEnd) } : {}),
    vadEvents: flag('vad_events'),
    punctuate: flag('punctuate') || flag('smart_format'),
  };
}

/** Answers a refused upgrade the way Deepgram does: an HTTP error with the JSON body, then close. */
function refuse(socket: Duplex, response: SimResponse): void {
  const body = JSON.stringify(response.json ?? {});
  const headers = { ...response.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'close' };
  const head = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? 'Error'}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n');
  socket.end(`${head}\r\n\r\n${body}`);
}
