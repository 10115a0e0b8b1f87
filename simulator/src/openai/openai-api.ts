import { randomUUID } from 'node:crypto';
import { safeDecode, type SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import type { ProviderApi, SimulatorState } from '../simulator-state.js';
import { parseOutputFormat, renderSpeech } from '../elevenlabs/output-formats.js';

const MAX_INPUT = 4096;
/** OpenAI's speech models, listed by GET /v1/models beside a chat model. */
export const OPENAI_MODELS = ['gpt-4o-mini-tts', 'tts-1', 'tts-1-hd', 'gpt-4o-mini'] as const;
const SPEECH_MODELS: ReadonlySet<string> = new Set(['gpt-4o-mini-tts', 'tts-1', 'tts-1-hd']);
/** OpenAI's built-in voices. */
export const OPENAI_VOICES: ReadonlySet<string> = new Set(['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse', 'marin', 'cedar']);
/** `response_format` → the simulator's renderer: OpenAI's pcm and wav are 24 kHz 16-bit mono. MP3, Opus, AAC and FLAC are not produced. */
const FORMATS: Readonly<Record<string, string>> = { pcm: 'pcm_24000', wav: 'wav_24000' };
const CREATED = 1_698_785_189;

/** OpenAI's error body: `{error: {message, type, param, code}}`. */
export function openAiError(status: number, type: string, code: string | null, message: string, param: string | null = null): SimResponse {
  return { status, headers: { 'x-request-id': `req_${randomUUID().replace(/-/g, '')}` }, json: { error: { message, type, param, code } } };
}

/** An injected fault in OpenAI's shape; 429 carries Retry-After. */
export function openAiFault(status: number, retryAfterSeconds: number): SimResponse {
  if (status === 429) {
    const response = openAiError(429, 'requests', 'rate_limit_exceeded', 'Rate limit reached for requests. Please try again later.');
    response.headers = { ...response.headers, 'retry-after': String(retryAfterSeconds) };
    return response;
  }
  if (status === 503) return openAiError(503, 'server_error', null, 'The engine is currently overloaded, please try again later.');
  if (status >= 500) return openAiError(status, 'server_error', null, 'The server had an error while processing your request.');
  return openAiError(status, 'invalid_request_error', null, 'The request was refused.');
}

function authenticate(state: SimulatorState, header: string | string[] | undefined): SimResponse | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const key = value?.startsWith('Bearer ') ? value.slice(7).trim() : undefined;
  if (!key) {
    return openAiError(401, 'invalid_request_error', null, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).");
  }
  if (key !== state.credentials.openai.apiKey) return openAiError(401, 'invalid_request_error', 'invalid_api_key', `Incorrect API key provided: ${key.slice(0, 3)}***${key.slice(-4)}.`);
  return undefined;
}

/** POST /v1/audio/speech: speech-like audio as long as the input, in pcm or wav. */
function speech(req: SimRequest): SimResponse {
  const body = typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>) : {};
  const { model, voice, input } = body;
  const responseFormat = body['response_format'] ?? 'mp3';
  if (typeof model !== 'string' || !SPEECH_MODELS.has(model)) return openAiError(404, 'invalid_request_error', 'model_not_found', `The model \`${String(model)}\` does not exist or you do not have access to it.`, 'model');
  if (typeof voice !== 'string' || !OPENAI_VOICES.has(voice)) return openAiError(400, 'invalid_request_error', 'invalid_value', `Invalid value: '${String(voice)}'. Supported values are: ${[...OPENAI_VOICES].map((v) => `'${v}'`).join(', ')}.`, 'voice');
  if (typeof input !== 'string' || input.trim() === '') return openAiError(400, 'invalid_request_error', 'invalid_value', 'The input may not be empty.', 'input');
  if (input.length > MAX_INPUT) return openAiError(400, 'invalid_request_error', 'string_above_max_length', `Input is ${input.length} characters; the limit is ${MAX_INPUT}.`, 'input');
  const format = typeof responseFormat === 'string' && FORMATS[responseFormat] ? parseOutputFormat(FORMATS[responseFormat]) : undefined;
  if (!format) return openAiError(400, 'invalid_request_error', 'invalid_value', `The simulator produces response_format pcm and wav only, not ${String(responseFormat)}.`, 'response_format');
  return {
    status: 200,
    chunked: true,
    binary: renderSpeech(input, format),
    headers: { 'content-type': responseFormat === 'wav' ? 'audio/wav' : 'audio/pcm', 'x-request-id': `req_${randomUUID().replace(/-/g, '')}` },
  };
}

const modelJson = (id: string) => ({ id, object: 'model', created: CREATED, owned_by: 'system' });

/** The subset of OpenAI's API that Switchboard's openai driver uses: speech, and the model list its health check reads. */
export function openAiApi(state: SimulatorState): ProviderApi {
  return {
    provider: 'openai',
    faultResponse: openAiFault,
    handle(req: SimRequest): SimResponse {
      const refused = authenticate(state, req.headers['authorization']);
      if (refused) return refused;
      if (req.path === '/v1/audio/speech') {
        if (req.method !== 'POST') return openAiError(405, 'invalid_request_error', null, `Invalid method for URL (${req.method} /v1/audio/speech)`);
        return speech(req);
      }
      if (req.method === 'GET' && req.path === '/v1/models') return { status: 200, json: { object: 'list', data: OPENAI_MODELS.map(modelJson) } };
      const model = /^\/v1\/models\/([^/]+)$/.exec(req.path);
      if (req.method === 'GET' && model) {
        const id = safeDecode(model[1]!);
        return (OPENAI_MODELS as readonly string[]).includes(id) ? { status: 200, json: modelJson(id) } : openAiError(404, 'invalid_request_error', 'model_not_found', `The model '${id}' does not exist`, 'model');
      }
      return openAiError(404, 'invalid_request_error', null, `Invalid URL (${req.method} ${req.path})`);
    },
  };
}
