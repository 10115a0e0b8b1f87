import { randomBytes, randomUUID } from 'node:crypto';
import type { SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import type { SimulatorState } from '../simulator-state.js';
import { notifyCallCreated, notifyCallUpdated } from '../twilio/calls-observer.js';
import type { SimCall, SimCallStatus, SimCallUpdate } from '../types.js';
import { NOT_FOUND, telnyxError, telnyxHeaders, type TelnyxErrorEntry } from './telnyx-errors.js';

const E164 = /^\+[1-9][0-9]{6,14}$/;
const ENDED: ReadonlySet<SimCallStatus> = new Set(['completed', 'busy', 'failed', 'no-answer', 'canceled']);
const CALL_ENDED: TelnyxErrorEntry = { code: '90018', title: 'Call has already ended', detail: 'This call is no longer active and can no longer receive commands.' };
/** Every call progress event: Call Control posts them all to the call's webhook URL. */
export const TELNYX_CALL_EVENTS = ['initiated', 'ringing', 'answered', 'completed'];

function invalid(detail: string, pointer: string): SimResponse {
  return telnyxError(422, { code: '10015', title: 'Invalid value', detail, source: { pointer } });
}

function ok(): SimResponse {
  return { status: 200, headers: telnyxHeaders(), json: { data: { result: 'ok' } } };
}

/** `v3:` and a url-safe token, the shape of Telnyx's call_control_id. */
export function callControlId(): string {
  return `v3:${randomBytes(24).toString('base64url')}`;
}

/** The TwiML the simulated phone runs for a Call Control stream: the shared runner connects it in Telnyx's dialect. */
export function streamTwiml(url: string): string {
  return `<Response><Connect><Stream url="${url.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"/></Connect></Response>`;
}

function body(req: SimRequest): Record<string, unknown> | undefined {
  if (req.bodyError !== undefined) return undefined;
  return typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : undefined;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** A stream Call Control can open: a ws(s) URL, with PCMU both ways when bidirectional. */
function streamOf(b: Record<string, unknown>): { url?: string; error?: SimResponse } {
  const url = text(b.stream_url);
  if (url === undefined) return {};
  if (!/^wss?:\/\/\S+$/.test(url)) return { error: invalid('stream_url must be a ws:// or wss:// URL.', '/stream_url') };
  const mode = b.stream_bidirectional_mode;
  if (mode !== undefined && mode !== 'rtp' && mode !== 'mp3') return { error: invalid('stream_bidirectional_mode must be mp3 or rtp.', '/stream_bidirectional_mode') };
  const codec = b.stream_bidirectional_codec;
  if (codec !== undefined && codec !== 'PCMU') return { error: invalid('The simulator streams PCMU only.', '/stream_bidirectional_codec') };
  return { url };
}

/** The call as GET /v2/calls/{id} answers (`data.is_alive`, `call_duration`). */
export function callStatusJson(call: SimCall): Record<string, unknown> {
  const t = call.telnyx!;
  const duration = call.startTime ? Math.round(((call.endTime ?? new Date()).getTime() - call.startTime.getTime()) / 1000) : 0;
  return {
    record_type: 'call',
    call_control_id: call.sid,
    call_leg_id: t.callLegId,
    call_session_id: t.callSessionId,
    is_alive: !ENDED.has(call.status),
    call_duration: duration,
    start_time: call.createdAt.toISOString(),
    ...(call.endTime ? { end_time: call.endTime.toISOString() } : {}),
    ...(t.clientState ? { client_state: t.clientState } : {}),
  };
}

/** POST /v2/calls (Dial): validates like Telnyx, stores the call and lets the simulated phone ring. */
export function dialCall(state: SimulatorState, req: SimRequest): SimResponse {
  const b = body(req);
  if (!b) return telnyxError(400, { code: '10015', title: 'Bad Request', detail: 'The request body is not JSON.' });
  const connectionId = text(b.connection_id);
  const to = text(b.to);
  const from = text(b.from);
  if (!connectionId) return invalid('connection_id is required.', '/connection_id');
  if (!to || !E164.test(to)) return invalid('to must be an E.164 number.', '/to');
  if (!from || !E164.test(from)) return invalid('from must be an E.164 number.', '/from');
  const stream = streamOf(b);
  if (stream.error) return stream.error;
  const webhookUrl = text(b.webhook_url);
  const now = new Date();
  const call: SimCall = {
    sid: callControlId(),
    accountSid: state.credentials.twilio.accountSid,
    from,
    to,
    status: 'queued',
    direction: 'outbound-api',
    statusCallbackEvents: TELNYX_CALL_EVENTS,
    params: typeof b.timeout_secs === 'number' ? { Timeout: String(b.timeout_secs) } : {},
    updates: [],
    createdAt: now,
    updatedAt: now,
    telnyx: { callLegId: randomUUID(), callSessionId: randomUUID(), connectionId, ...(text(b.client_state) ? { clientState: text(b.client_state)! } : {}), ...(stream.url ? { streamUrl: stream.url } : {}) },
  };
  if (webhookUrl) call.statusCallback = webhookUrl;
  // Without a stream the answered call has nothing to run: the phone's runner ends it as Telnyx would hold it silent.
  call.twiml = stream.url ? streamTwiml(stream.url) : '<Response><Pause length="1"/></Response>';
  state.telnyx.calls.set(call.sid, call);
  notifyCallCreated(state, call);
  return { status: 200, headers: telnyxHeaders(), json: { data: { ...callStatusJson(call), is_alive: false } } };
}

/** GET /v2/calls/{id}. */
export function retrieveCall(state: SimulatorState, id: string): SimResponse {
  const call = state.telnyx.calls.get(id);
  if (!call) return telnyxError(404, NOT_FOUND);
  return { status: 200, headers: telnyxHeaders(), json: { data: callStatusJson(call) } };
}

/** POST /v2/calls/{id}/actions/{action}: answer, hangup, transfer, speak, playback_start, streaming_start. */
export function callAction(state: SimulatorState, id: string, action: string, req: SimRequest): SimResponse {
  const call = state.telnyx.calls.get(id);
  if (!call) return telnyxError(404, NOT_FOUND);
  const b = body(req) ?? {};
  if (ENDED.has(call.status)) return telnyxError(422, CALL_ENDED);
  const now = new Date();
  const update = (u: Omit<SimCallUpdate, 'at'>): SimResponse => {
    const change = { ...u, at: now };
    call.updates.push(change);
    call.updatedAt = now;
    notifyCallUpdated(state, call, change);
    return ok();
  };
  switch (action) {
    case 'answer': {
      if (call.direction !== 'inbound' || call.startTime) return telnyxError(422, { code: '90015', title: 'Call already answered', detail: 'Only a ringing incoming call can be answered.' });
      const stream = streamOf(b);
      if (stream.error) return stream.error;
      const webhookUrl = text(b.webhook_url);
      if (webhookUrl) call.statusCallback = webhookUrl;
      if (text(b.client_state)) call.telnyx!.clientState = text(b.client_state)!;
      if (stream.url) call.telnyx!.streamUrl = stream.url;
      call.twiml = stream.url ? streamTwiml(stream.url) : '<Response><Pause length="60"/></Response>';
      return update({ answer: true, twiml: call.twiml });
    }
    case 'hangup':
      call.status = call.startTime ? 'completed' : 'canceled';
      call.endTime = now;
      return update({ status: call.status });
    case 'transfer': {
      const to = text(b.to);
      if (!to || !E164.test(to)) return invalid('to must be an E.164 number.', '/to');
      const from = text(b.from);
      return update({ twiml: `<Response><Dial${from ? ` callerId="${from}"` : ''}><Number>${to}</Number></Dial></Response>` });
    }
    case 'streaming_start': {
      const stream = streamOf(b);
      if (stream.error) return stream.error;
      if (!stream.url) return invalid('stream_url is required.', '/stream_url');
      if (text(b.client_state)) call.telnyx!.clientState = text(b.client_state)!;
      call.telnyx!.streamUrl = stream.url;
      return update({ twiml: streamTwiml(stream.url) });
    }
    case 'speak':
      if (!text(b.payload)) return invalid('payload is required.', '/payload');
      if (!text(b.voice)) return invalid('voice is required.', '/voice');
      call.updates.push({ at: now, twiml: `<Response><Say>${String(b.payload).replace(/[<&]/g, ' ')}</Say></Response>` });
      return ok();
    case 'playback_start':
      if (!text(b.audio_url) && !text(b.playback_content)) return invalid('audio_url or playback_content is required.', '/audio_url');
      call.updates.push({ at: now, url: text(b.audio_url) ?? 'playback_content' });
      return ok();
    default:
      return telnyxError(404, NOT_FOUND);
  }
}
