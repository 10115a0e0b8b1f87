import type { SimResponse } from '../http/sim-response.js';
import { twilioSid } from '../ids.js';
import type { SimulatorState } from '../simulator-state.js';
import { countSegments } from './sms-segments.js';
import { contentBySid, renderContent } from './content.js';
import { scheduleMessageStatusCallbacks, scheduleMessageFailure, scheduleSilentOutcome } from './status-callbacks.js';
import { WINDOW_CLOSED } from './whatsapp-window.js';
import { twilioError, twilioNotFound } from './twilio-errors.js';
import {
  API_VERSION,
  formField,
  formFieldList,
  isHttpUrl,
  parseRecipient,
  parseSender,
  rfc2822,
  twilioHeaders,
} from './twilio-format.js';
import type { TwilioMessage } from './twilio-ledger.js';
import { twilioPage } from './pagination.js';

type Form = Record<string, string | string[]>;

const MAX_BODY = 1600;
const MAX_MEDIA = 10;

/** The Message resource JSON, with the fields Twilio returns. */
export function messageJson(m: TwilioMessage): Record<string, unknown> {
  const uri = `/${API_VERSION}/Accounts/${m.accountSid}/Messages/${m.sid}.json`;
  return {
    account_sid: m.accountSid,
    api_version: API_VERSION,
    body: m.body,
    date_created: rfc2822(m.dateCreated),
    date_sent: m.dateSent ? rfc2822(m.dateSent) : null,
    date_updated: rfc2822(m.dateUpdated),
    direction: 'outbound-api',
    error_code: m.errorCode,
    error_message: m.errorMessage,
    from: m.from,
    messaging_service_sid: m.messagingServiceSid,
    num_media: String(m.mediaUrls.length),
    num_segments: String(m.numSegments),
    price: m.price,
    price_unit: 'USD',
    sid: m.sid,
    status: m.status,
    subresource_uris: {
      media: `/${API_VERSION}/Accounts/${m.accountSid}/Messages/${m.sid}/Media.json`,
      feedback: `/${API_VERSION}/Accounts/${m.accountSid}/Messages/${m.sid}/Feedback.json`,
    },
    to: m.to,
    uri,
  };
}

/** POST Messages.json: validates like Twilio, stores, records and schedules status callbacks. */
export function createMessage(state: SimulatorState, accountSid: string, form: Form): SimResponse {
  const to = formField(form, 'To');
  const from = formField(form, 'From');
  const body = formField(form, 'Body') ?? '';
  const mediaUrls = formFieldList(form, 'MediaUrl');
  const messagingServiceSid = formField(form, 'MessagingServiceSid');
  const statusCallback = formField(form, 'StatusCallback');
  const contentSid = formField(form, 'ContentSid');
  const contentVariables = formField(form, 'ContentVariables');

  if (!to) return twilioError(400, 21604, "A 'To' phone number is required.");
  const recipient = parseRecipient(to);
  if (!recipient) return twilioError(400, 21211, `Invalid 'To' Phone Number: ${to}`);
  if (!from && !messagingServiceSid) return twilioError(400, 21603, "A 'From' phone number is required.");
  if (messagingServiceSid && !/^MG[0-9a-fA-F]{32}$/.test(messagingServiceSid)) {
    return twilioError(400, 21701, `The Messaging Service Sid ${messagingServiceSid} is invalid.`);
  }
  if (from) {
    const sender = parseSender(from);
    if (!sender) return twilioError(400, 21212, `Invalid From Number (caller ID): ${from}`);
    if (sender.channel !== recipient.channel) {
      return twilioError(400, 21910, 'Invalid From and To pair. From and To should be of the same channel');
    }
  }
  let variables: Record<string, string> | undefined;
  if (contentVariables !== undefined) {
    variables = parseVariables(contentVariables);
    if (!variables) return twilioError(400, 21656, 'The ContentVariables Parameter is invalid.');
  }
  const content = contentSid === undefined ? undefined : contentBySid(contentSid);
  if (contentSid !== undefined && !content) return twilioError(400, 21655, 'The ContentSid is Invalid.');
  if (body === '' && mediaUrls.length === 0 && !content) return twilioError(400, 21602, 'Message body is required.');
  if (body.length > MAX_BODY) return twilioError(400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
  if (mediaUrls.length > MAX_MEDIA) return twilioError(400, 21623, 'The number of media files exceeds the limit of 10.');
  if (mediaUrls.some((u) => !isHttpUrl(u))) return twilioError(400, 21620, `Invalid media URL(s): ${mediaUrls.join(', ')}`);
  if (statusCallback !== undefined && !isHttpUrl(statusCallback)) return twilioError(400, 21609, `Invalid StatusCallback url: ${statusCallback}`);

  const now = state.clock.now();
  const pooled = state.settings.phoneNumbers[0] ?? '+15005550006';
  const sender = from ?? (recipient.channel === 'whatsapp' ? `whatsapp:${pooled}` : pooled);
  const message: TwilioMessage = {
    sid: twilioSid('SM'),
    accountSid,
    channel: recipient.channel,
    from: from ?? null,
    sender,
    to,
    body: content ? renderContent(content, variables ?? {}) : body,
    status: from ? 'queued' : 'accepted',
    numSegments: countSegments(content ? renderContent(content, variables ?? {}) : body),
    mediaUrls,
    price: null,
    errorCode: null,
    errorMessage: null,
    messagingServiceSid: messagingServiceSid ?? null,
    dateCreated: now,
    dateUpdated: now,
    dateSent: null,
  };
  if (statusCallback) message.statusCallback = statusCallback;
  if (content) {
    message.contentSid = content.sid;
    message.contentVariables = variables ?? {};
  }
  state.twilio.messages.set(message.sid, message);
  state.messages.push({
    provider: 'twilio',
    channel: recipient.channel,
    id: message.sid,
    from: sender,
    to,
    body: message.body,
    mediaUrls,
    ...(statusCallback ? { statusCallback } : {}),
    ...(content ? { contentSid: content.sid, contentVariables: variables ?? {} } : {}),
    at: now,
  });
  // Like Twilio, a free-form WhatsApp message outside the user's 24-hour window is taken (201), then fails with 63016.
  const closed = recipient.channel === 'whatsapp' && !content && !state.twilio.whatsappWindows.isOpen(to, sender, now);
  const silent = state.silenced.get('twilio');
  if (closed) scheduleMessageFailure(state, message, WINDOW_CLOSED);
  else if (silent) scheduleSilentOutcome(state, message, silent);
  else if (state.settings.statusCallbacks) scheduleMessageStatusCallbacks(state, message);
  return { status: 201, headers: twilioHeaders(), json: messageJson(message) };
}

/** ContentVariables: a JSON object of strings, as Twilio takes it. */
function parseVariables(json: string): Record<string, string> | undefined {
  try {
    const value = JSON.parse(json) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const entries = Object.entries(value);
    return entries.every(([, v]) => typeof v === 'string' || typeof v === 'number') ? Object.fromEntries(entries.map(([k, v]) => [k, String(v)])) : undefined;
  } catch {
    return undefined;
  }
}

export function fetchMessage(state: SimulatorState, accountSid: string, sid: string, path: string): SimResponse {
  const message = state.twilio.messages.get(sid);
  if (!message || message.accountSid !== accountSid) return twilioNotFound(path);
  return { status: 200, headers: twilioHeaders(), json: messageJson(message) };
}

/** GET Messages.json, newest first, filtered by To and From like Twilio. */
export function listMessages(state: SimulatorState, accountSid: string, query: URLSearchParams): SimResponse {
  const to = query.get('To');
  const from = query.get('From');
  const items = state.twilio.messages
    .values()
    .filter((m) => m.accountSid === accountSid && (!to || m.to === to) && (!from || m.sender === from))
    .reverse()
    .map(messageJson);
  const filters: Record<string, string> = {};
  if (to) filters['To'] = to;
  if (from) filters['From'] = from;
  return {
    status: 200,
    headers: twilioHeaders(),
    json: twilioPage('messages', `/${API_VERSION}/Accounts/${accountSid}/Messages.json`, items, query, filters),
  };
}
