import type { SimResponse } from '../http/sim-response.js';
import { twilioSid } from '../ids.js';
import type { SimulatorState } from '../simulator-state.js';
import type { SimCall, SimCallStatus } from '../types.js';
import { notifyCallCreated, notifyCallUpdated } from './calls-observer.js';
import { callDurationSeconds } from './calls-webhooks.js';
import { twilioPage } from './pagination.js';
import { completeCallRecordings } from './recordings.js';
import { twilioError } from './twilio-errors.js';
import { API_VERSION, E164, formField, formFieldList, formatNumber, isHttpUrl, rfc2822, twilioHeaders } from './twilio-format.js';

type Form = Record<string, string | string[]>;

const ENDED: ReadonlySet<SimCallStatus> = new Set(['completed', 'busy', 'failed', 'no-answer', 'canceled']);
const KNOWN_FIELDS = new Set(['To', 'From', 'Url', 'Method', 'Twiml', 'StatusCallback', 'StatusCallbackMethod', 'StatusCallbackEvent']);

/** Voice endpoints a call may dial: a number, a Client identity or a SIP URI. */
function isCallEndpoint(value: string): boolean {
  return E164.test(value) || /^client:\S+$/.test(value) || /^sip:\S+@\S+$/.test(value);
}

/** The Call resource JSON, with the fields Twilio returns. */
export function callJson(call: SimCall, state: SimulatorState): Record<string, unknown> {
  const base = `/${API_VERSION}/Accounts/${call.accountSid}/Calls/${call.sid}`;
  const duration = call.startTime && call.endTime ? callDurationSeconds(call) : null;
  return {
    account_sid: call.accountSid,
    annotation: null,
    answered_by: null,
    api_version: API_VERSION,
    caller_name: null,
    date_created: rfc2822(call.createdAt),
    date_updated: rfc2822(call.updatedAt),
    direction: call.direction,
    duration: duration === null ? null : String(duration),
    end_time: call.endTime ? rfc2822(call.endTime) : null,
    forwarded_from: null,
    from: call.from,
    from_formatted: formatNumber(call.from),
    group_sid: null,
    parent_call_sid: null,
    phone_number_sid: state.twilio.numbers.find((n) => n.phoneNumber === call.from)?.sid ?? null,
    price: call.price ?? null,
    price_unit: 'USD',
    queue_time: '0',
    sid: call.sid,
    start_time: call.startTime ? rfc2822(call.startTime) : null,
    status: call.status,
    subresource_uris: {
      notifications: `${base}/Notifications.json`,
      recordings: `${base}/Recordings.json`,
      payments: `${base}/Payments.json`,
      events: `${base}/Events.json`,
      siprec: `${base}/Siprec.json`,
      streams: `${base}/Streams.json`,
      transcriptions: `${base}/Transcriptions.json`,
      user_defined_message_subscriptions: `${base}/UserDefinedMessageSubscriptions.json`,
      user_defined_messages: `${base}/UserDefinedMessages.json`,
    },
    to: call.to,
    to_formatted: formatNumber(call.to),
    trunk_sid: null,
    uri: `${base}.json`,
  };
}

/** POST Calls.json: validates like Twilio and stores a queued call. */
export function createCall(state: SimulatorState, accountSid: string, form: Form): SimResponse {
  const to = formField(form, 'To');
  const from = formField(form, 'From');
  const url = formField(form, 'Url');
  const twiml = formField(form, 'Twiml');
  const statusCallback = formField(form, 'StatusCallback');
  if (!to) return twilioError(400, 21201, "No 'To' number is specified");
  if (!isCallEndpoint(to)) return twilioError(400, 21211, `Invalid 'To' Phone Number: ${to}`);
  if (!from) return twilioError(400, 21213, "No 'From' number is specified");
  if (!isCallEndpoint(from)) return twilioError(400, 21212, `Invalid 'From' Phone Number: ${from}`);
  if (!url && !twiml && !formField(form, 'ApplicationSid')) return twilioError(400, 21205, 'Url parameter is required.');
  if (url !== undefined && !isHttpUrl(url)) return twilioError(400, 21205, `Url is not a valid URL: ${url}`);
  if (statusCallback !== undefined && !isHttpUrl(statusCallback)) return twilioError(400, 21609, `StatusCallback is not a valid URL: ${statusCallback}`);

  const now = new Date();
  const params: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(form)) if (!KNOWN_FIELDS.has(key)) params[key] = value;
  const call: SimCall = {
    sid: twilioSid('CA'),
    accountSid,
    from,
    to,
    status: 'queued',
    direction: 'outbound-api',
    statusCallbackEvents: formFieldList(form, 'StatusCallbackEvent'),
    params,
    updates: [],
    createdAt: now,
    updatedAt: now,
  };
  if (url) call.url = url;
  const method = formField(form, 'Method');
  if (method) call.method = method;
  if (twiml) call.twiml = twiml;
  if (statusCallback) call.statusCallback = statusCallback;
  const statusCallbackMethod = formField(form, 'StatusCallbackMethod');
  if (statusCallbackMethod) call.statusCallbackMethod = statusCallbackMethod;
  state.twilio.calls.set(call.sid, call);
  const response: SimResponse = { status: 201, headers: twilioHeaders(), json: callJson(call, state) };
  notifyCallCreated(state, call);
  return response;
}

/** POST Calls/{sid}.json: redirect with Twiml/Url, or end with Status=completed|canceled. */
export function updateCall(state: SimulatorState, call: SimCall, form: Form): SimResponse {
  const status = formField(form, 'Status');
  const url = formField(form, 'Url');
  const twiml = formField(form, 'Twiml');
  if (status !== undefined && status !== 'completed' && status !== 'canceled') {
    return twilioError(400, 20001, `Invalid Status: ${status}. Use 'canceled' or 'completed'.`);
  }
  if (url !== undefined && !isHttpUrl(url)) return twilioError(400, 21205, `Url is not a valid URL: ${url}`);
  if ((url || twiml) && ENDED.has(call.status)) return twilioError(400, 21220, 'Call is not in-progress. Cannot redirect.');

  const now = new Date();
  const update: SimCall['updates'][number] = { at: now };
  if (twiml) {
    call.twiml = twiml;
    delete call.url;
    update.twiml = twiml;
  } else if (url) {
    call.url = url;
    delete call.twiml;
    update.url = url;
  }
  if (status && !ENDED.has(call.status)) {
    const pending = call.status === 'queued' || call.status === 'ringing';
    // Twilio: `canceled` only affects a call not yet answered; `completed` ends any call.
    if (status === 'completed' || pending) {
      call.status = status;
      call.endTime = now;
      completeCallRecordings(state, call);
    }
    update.status = status;
  }
  call.updates.push(update);
  call.updatedAt = now;
  const response: SimResponse = { status: 200, headers: twilioHeaders(), json: callJson(call, state) };
  notifyCallUpdated(state, call, update);
  return response;
}

/** GET Calls.json, newest first, filtered by To, From and Status like Twilio. */
export function listCalls(state: SimulatorState, accountSid: string, query: URLSearchParams): SimResponse {
  const filters: Record<string, string> = {};
  for (const name of ['To', 'From', 'Status']) {
    const value = query.get(name);
    if (value) filters[name] = value;
  }
  const items = state.twilio.calls
    .values()
    .filter(
      (c) =>
        c.accountSid === accountSid &&
        (!filters['To'] || c.to === filters['To']) &&
        (!filters['From'] || c.from === filters['From']) &&
        (!filters['Status'] || c.status === filters['Status']),
    )
    .reverse()
    .map((c) => callJson(c, state));
  return {
    status: 200,
    headers: twilioHeaders(),
    json: twilioPage('calls', `/${API_VERSION}/Accounts/${accountSid}/Calls.json`, items, query, filters),
  };
}
