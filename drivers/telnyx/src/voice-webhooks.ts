import { malformedPayload, type CallStatusEvent, type WebhookRequest } from '@switchboard/sdk';

/** The fields of a Call Control event's payload the driver reads. */
export interface CallPayload {
  readonly call_control_id?: string;
  readonly call_leg_id?: string;
  readonly call_session_id?: string;
  readonly from?: string;
  readonly to?: string;
  readonly direction?: string;
  readonly state?: string;
  readonly start_time?: string;
  readonly end_time?: string;
  readonly hangup_cause?: string;
  readonly client_state?: string;
}

interface CallEnvelope {
  readonly data?: { readonly event_type?: string; readonly payload?: CallPayload };
}

/** A `call.hangup`'s `hangup_cause` as a call status; causes not listed are `failed`. */
const HANGUP_STATUS: Readonly<Record<string, string>> = {
  normal_clearing: 'completed',
  time_limit: 'completed',
  originator_cancel: 'canceled',
  user_busy: 'busy',
  busy: 'busy',
  call_rejected: 'busy',
  timeout: 'no-answer',
  no_answer: 'no-answer',
};

/** The call-state events; others (`streaming.started`, `call.speak.ended`, …) change no call's status. */
const CALL_EVENTS: ReadonlySet<string> = new Set(['call.initiated', 'call.answered', 'call.bridged', 'call.hangup']);

/**
 * A Call Control webhook as a normalised call status: `call.initiated` is `ringing` for an incoming
 * call and `queued` for one placed; `call.answered` (and `call.bridged`) `in-progress`; `call.hangup`
 * by its `hangup_cause`, with the seconds between `start_time` and `end_time` when it completed.
 * The call's id is its `call_control_id`, which every command takes. Verify the signature first.
 */
export function parseCallWebhook(request: WebhookRequest): CallStatusEvent | undefined {
  let envelope: CallEnvelope;
  try {
    envelope = JSON.parse(request.rawBody.toString('utf8')) as CallEnvelope;
  } catch (err) {
    throw malformedPayload('telnyx', 'is not JSON', err);
  }
  const data = envelope?.data;
  const payload = data?.payload;
  if (typeof data?.event_type !== 'string' || typeof payload !== 'object' || payload === null) throw malformedPayload('telnyx', 'is not a Telnyx event (data.event_type, data.payload)');
  if (!CALL_EVENTS.has(data.event_type)) return undefined;
  const callSid = payload.call_control_id;
  if (typeof callSid !== 'string' || callSid === '') throw malformedPayload('telnyx', 'names no call (data.payload.call_control_id)');
  const status = statusOf(data.event_type, payload);
  const durationSeconds = status === 'completed' ? secondsBetween(payload.start_time, payload.end_time) : data.event_type === 'call.hangup' ? 0 : null;
  return {
    type: 'call-status',
    callSid,
    status,
    durationSeconds,
    cost: null,
    ...(typeof payload.from === 'string' && payload.from ? { from: payload.from } : {}),
    ...(typeof payload.to === 'string' && payload.to ? { to: payload.to } : {}),
    ...(payload.direction ? { direction: payload.direction === 'incoming' ? 'inbound' : 'outbound' } : {}),
  };
}

function statusOf(eventType: string, payload: CallPayload): string {
  switch (eventType) {
    case 'call.initiated':
      return payload.direction === 'incoming' ? 'ringing' : 'queued';
    case 'call.hangup':
      return HANGUP_STATUS[payload.hangup_cause ?? ''] ?? 'failed';
    default:
      return 'in-progress';
  }
}

function secondsBetween(start: string | undefined, end: string | undefined): number | null {
  const ms = Date.parse(end ?? '') - Date.parse(start ?? '');
  return Number.isFinite(ms) && ms >= 0 ? Math.round(ms / 1000) : null;
}
