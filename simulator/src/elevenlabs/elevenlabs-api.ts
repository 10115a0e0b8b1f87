import { randomBytes, randomUUID } from 'node:crypto';
import { safeDecode, type SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import type { ProviderApi, SimulatorState } from '../simulator-state.js';
import { DEFAULT_OUTPUT_FORMAT, parseOutputFormat, renderSpeech, SUPPORTED_OUTPUT_FORMATS } from './output-formats.js';
import { PREMADE_VOICES, isVoiceId, userJson, voiceJson } from './voices.js';

const MAX_TEXT = 10_000;
const TTS_PATH = /^\/v1\/text-to-speech\/([^/]+)(\/stream)?$/;

/** ElevenLabs' error body: `{detail: {status, message}}`. */
export function elevenLabsError(status: number, code: string, message: string): SimResponse {
  return { status, headers: { 'request-id': randomUUID() }, json: { detail: { status: code, message } } };
}

/** An injected fault in ElevenLabs' shape; 429 carries Retry-After. */
export function elevenLabsFault(status: number, retryAfterSeconds: number): SimResponse {
  if (status === 429) {
    const response = elevenLabsError(429, 'too_many_concurrent_requests', 'Too many concurrent requests. Please try again later.');
    response.headers = { ...response.headers, 'retry-after': String(retryAfterSeconds) };
    return response;
  }
  if (status === 503) return elevenLabsError(503, 'system_busy', 'The system is experiencing heavy traffic, please try again.');
  if (status >= 500) return elevenLabsError(status, 'internal_server_error', 'An internal server error occurred.');
  return elevenLabsError(status, 'invalid_request', 'The request was refused.');
}

function authenticate(state: SimulatorState, header: string | string[] | undefined): SimResponse | undefined {
  const key = Array.isArray(header) ? header[0] : header;
  if (!key) return elevenLabsError(401, 'needs_authorization', 'Neither authorization header nor xi-api-key received, please provide one.');
  if (key !== state.credentials.elevenlabs.apiKey) return elevenLabsError(401, 'invalid_api_key', 'Invalid API key');
  return undefined;
}

/** POST /v1/text-to-speech/{voice_id}[/stream]: real audio in the requested output_format. */
function textToSpeech(state: SimulatorState, req: SimRequest, voiceId: string, stream: boolean): SimResponse {
  if (!isVoiceId(voiceId)) return elevenLabsError(404, 'voice_not_found', `A voice with the voice_id ${voiceId} was not found.`);
  const formatName = req.query.get('output_format') ?? DEFAULT_OUTPUT_FORMAT;
  const format = parseOutputFormat(formatName);
  if (!format) {
    return elevenLabsError(422, 'invalid_output_format', `Output format ${formatName} is not supported by the simulator; use one of ${SUPPORTED_OUTPUT_FORMATS.join(', ')}.`);
  }
  const body = typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>) : {};
  const text = body['text'];
  if (typeof text !== 'string' || text.trim() === '') return elevenLabsError(422, 'invalid_text', 'The text field is required and may not be empty.');
  if (text.length > MAX_TEXT) return elevenLabsError(422, 'text_too_long', `Text is ${text.length} characters; the limit is ${MAX_TEXT}.`);
  state.elevenlabs.characterCount += text.length;
  return {
    status: 200,
    chunked: stream,
    binary: renderSpeech(text, format),
    headers: {
      'content-type': format.contentType,
      'request-id': randomUUID(),
      'history-item-id': randomBytes(10).toString('hex'),
      'character-cost': String(text.length),
    },
  };
}

/** The subset of the ElevenLabs API that Switchboard's elevenlabs driver uses. */
export function elevenLabsApi(state: SimulatorState): ProviderApi {
  return {
    provider: 'elevenlabs',
    faultResponse: elevenLabsFault,
    handle(req: SimRequest): SimResponse {
      const refused = authenticate(state, req.headers['xi-api-key']);
      if (refused) return refused;
      const tts = TTS_PATH.exec(req.path);
      if (tts) {
        if (req.method !== 'POST') return elevenLabsError(405, 'method_not_allowed', 'Method not allowed');
        return textToSpeech(state, req, safeDecode(tts[1]!), tts[2] !== undefined);
      }
      if (req.method === 'GET' && req.path === '/v1/voices') return { status: 200, json: { voices: PREMADE_VOICES.map(voiceJson) } };
      const voice = /^\/v1\/voices\/([^/]+)$/.exec(req.path);
      if (req.method === 'GET' && voice) {
        const found = PREMADE_VOICES.find((v) => v.voice_id === voice[1]);
        return found ? { status: 200, json: voiceJson(found) } : elevenLabsError(404, 'voice_not_found', `A voice with the voice_id ${voice[1]} was not found.`);
      }
      if (req.method === 'GET' && req.path === '/v1/user') return { status: 200, json: userJson(state.elevenlabs.characterCount, state.credentials.elevenlabs.apiKey) };
      return elevenLabsError(404, 'not_found', 'Not found');
    },
  };
}
