import type { SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import { lineMessageId, opaqueToken } from '../ids.js';
import type { SimulatorState } from '../simulator-state.js';
import type { LineBotCredentials } from '../types.js';
import { lineError, lineHeaders, type LineErrorDetail } from './line-errors.js';

const MESSAGE_TYPES = ['text', 'image', 'video', 'audio', 'location', 'sticker', 'imagemap', 'template', 'flex', 'textV2'];
const RECIPIENT = /^[UCR][0-9a-f]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_TEXT = 5000;

type LineMessage = Record<string, unknown>;

/** Checks `messages` as LINE does and lists every problem found, with its property path. */
export function validateMessages(messages: unknown): LineErrorDetail[] {
  if (!Array.isArray(messages) || messages.length < 1 || messages.length > 5) {
    return [{ message: 'Size must be between 1 and 5', property: 'messages' }];
  }
  const details: LineErrorDetail[] = [];
  messages.forEach((m: unknown, i) => {
    const at = `messages[${i}]`;
    if (typeof m !== 'object' || m === null) {
      details.push({ message: 'Must be an object', property: at });
      return;
    }
    const message = m as LineMessage;
    if (typeof message['type'] !== 'string' || !MESSAGE_TYPES.includes(message['type'])) {
      details.push({ message: `Must be one of the following values: [${MESSAGE_TYPES.join(', ')}]`, property: `${at}.type` });
      return;
    }
    if (message['type'] === 'text' || message['type'] === 'textV2') {
      const text = message['text'];
      if (typeof text !== 'string' || text.length === 0) details.push({ message: 'May not be empty', property: `${at}.text` });
      else if (text.length > MAX_TEXT) details.push({ message: `Length must be between 0 and ${MAX_TEXT}`, property: `${at}.text` });
    }
    if (message['type'] === 'image' || message['type'] === 'video') {
      for (const field of ['originalContentUrl', 'previewImageUrl']) {
        const url = message[field];
        if (typeof url !== 'string' || !url.startsWith('https://')) details.push({ message: 'Must be a valid HTTPS URL', property: `${at}.${field}` });
      }
    }
  });
  return details;
}

function bodyOf(req: SimRequest): Record<string, unknown> | undefined {
  return typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : undefined;
}

function invalidBody(details: LineErrorDetail[]): SimResponse {
  return lineError(400, `The request body has ${details.length} error(s)`, details);
}

/** Accepts validated messages: gives each an id and quote token and records it as sent. */
function accept(state: SimulatorState, bot: LineBotCredentials, to: string, messages: LineMessage[]): { id: string; quoteToken: string }[] {
  const at = new Date();
  return messages.map((message) => {
    const sent = { id: lineMessageId(), quoteToken: opaqueToken(60) };
    const text = typeof message['text'] === 'string' ? message['text'] : typeof message['altText'] === 'string' ? message['altText'] : '';
    const media = typeof message['originalContentUrl'] === 'string' ? [message['originalContentUrl']] : [];
    state.messages.push({ provider: 'line', channel: 'line', id: sent.id, from: bot.botUserId, to, body: text, mediaUrls: media, at });
    return sent;
  });
}

/** POST /v2/bot/message/push, honouring X-Line-Retry-Key (a retried accepted key → 409). */
export function pushMessage(state: SimulatorState, req: SimRequest, bot: LineBotCredentials): SimResponse {
  const body = bodyOf(req);
  if (!body || req.bodyError !== undefined) return lineError(400, 'The request body is not valid JSON');
  const header = req.headers['x-line-retry-key'];
  const retryKey = Array.isArray(header) ? header[0] : header;
  if (retryKey !== undefined && !UUID.test(retryKey)) return lineError(400, "The value for the 'X-Line-Retry-Key' header is invalid");
  if (retryKey !== undefined) {
    const accepted = state.line.retryKeys.get(retryKey);
    if (accepted) {
      return {
        status: 409,
        headers: { ...lineHeaders(), 'x-line-accepted-request-id': accepted.requestId },
        json: { message: 'The retry key is already accepted', sentMessages: accepted.sentMessages },
      };
    }
  }
  const to = body['to'];
  if (typeof to !== 'string' || !RECIPIENT.test(to)) return lineError(400, "The property, 'to', in the request body is invalid (line: -, column: -)");
  const details = validateMessages(body['messages']);
  if (details.length > 0) return invalidBody(details);
  const sentMessages = accept(state, bot, to, body['messages'] as LineMessage[]);
  const headers = lineHeaders();
  if (retryKey !== undefined) state.line.retryKeys.set(retryKey, { requestId: headers['x-line-request-id']!, sentMessages });
  return { status: 200, headers, json: { sentMessages } };
}

/** POST /v2/bot/message/reply: each reply token the simulator issued works once. */
export function replyMessage(state: SimulatorState, req: SimRequest, bot: LineBotCredentials): SimResponse {
  const body = bodyOf(req);
  if (!body || req.bodyError !== undefined) return lineError(400, 'The request body is not valid JSON');
  if (req.headers['x-line-retry-key'] !== undefined) return lineError(400, 'X-Line-Retry-Key is not supported by this API');
  const details = validateMessages(body['messages']);
  const replyToken = body['replyToken'];
  if (typeof replyToken !== 'string' || replyToken === '') details.unshift({ message: 'May not be empty', property: 'replyToken' });
  if (details.length > 0) return invalidBody(details);
  const issued = state.line.replyTokens.get(replyToken as string);
  if (!issued) return lineError(400, 'Invalid reply token');
  state.line.replyTokens.delete(replyToken as string);
  return { status: 200, headers: lineHeaders(), json: { sentMessages: accept(state, bot, issued.userId, body['messages'] as LineMessage[]) } };
}
