import { randomUUID } from 'node:crypto';
import type { SimulatorState } from '../simulator-state.js';
import type { InboundResult, InboundTelnyxCallEventOptions, WebhookTampering } from '../inbound-types.js';
import type { SimCall, SimCallStatus } from '../types.js';
import { webhookUrl, type WebhookAnswer } from '../webhook-delivery.js';
import { postTelnyxWebhook } from './telnyx-webhooks.js';

/** A call's end as `call.hangup`'s `hangup_cause`. */
const HANGUP_CAUSE: Readonly<Record<string, string>> = {
  completed: 'normal_clearing',
  busy: 'user_busy',
  'no-answer': 'timeout',
  canceled: 'originator_cancel',
  failed: 'unspecified',
};

/** The phone's progress events as Call Control's: initiated, answered, and the hangup (ringing has none). */
const EVENT_TYPE: Readonly<Record<string, string>> = { initiated: 'call.initiated', answered: 'call.answered', completed: 'call.hangup' };

/** A Call Control event for the call, as Telnyx posts it (`data.event_type`, `data.payload`). */
export function telnyxCallEvent(call: SimCall, eventType: string, status: SimCallStatus): Record<string, unknown> {
  const t = call.telnyx!;
  const ended = eventType === 'call.hangup';
  const payload: Record<string, unknown> = {
    call_control_id: call.sid,
    call_leg_id: t.callLegId,
    call_session_id: t.callSessionId,
    connection_id: t.connectionId,
    from: call.from,
    to: call.to,
    direction: call.direction === 'inbound' ? 'incoming' : 'outgoing',
    state: ended ? 'hangup' : eventType === 'call.answered' ? 'answered' : call.direction === 'inbound' ? 'parked' : 'bridging',
    ...(t.clientState ? { client_state: t.clientState } : {}),
  };
  if (ended) {
    Object.assign(payload, {
      start_time: (call.startTime ?? call.createdAt).toISOString(),
      end_time: (call.endTime ?? new Date()).toISOString(),
      hangup_cause: HANGUP_CAUSE[status] ?? 'unspecified',
      hangup_source: 'unknown',
      sip_hangup_cause: status === 'busy' ? '486' : status === 'completed' ? '200' : '487',
    });
  } else if (eventType === 'call.answered' && call.startTime) {
    payload.start_time = call.startTime.toISOString();
  }
  const id = randomUUID();
  return { data: { record_type: 'event', event_type: eventType, id, occurred_at: new Date().toISOString(), payload }, meta: { attempt: 1, delivered_to: call.statusCallback ?? '' } };
}

/** The Call Control event for a phone progress event (`initiated`, `answered`, `completed`), or undefined when Telnyx posts none. */
export function telnyxEventTypeOf(event: string): string | undefined {
  return EVENT_TYPE[event];
}

/** Posts the call's event, signed with Ed25519 as Telnyx signs webhooks. */
export function postTelnyxCallEvent(state: SimulatorState, url: string, call: SimCall, eventType: string, status: SimCallStatus, tampering: WebhookTampering = {}): Promise<WebhookAnswer> {
  return postTelnyxWebhook(state, url, telnyxCallEvent(call, eventType, status), tampering);
}

/** Posts a Call Control event for the simulator's own call with that id, else for a call made from the options. */
export async function sendTelnyxCallEvent(state: SimulatorState, o: InboundTelnyxCallEventOptions): Promise<InboundResult> {
  const url = webhookUrl(state.gatewayUrl, o, 'call-status');
  const known = o.callControlId ? state.telnyx.calls.get(o.callControlId) : undefined;
  const now = new Date();
  const call: SimCall = known ?? {
    sid: o.callControlId ?? `v3:${randomUUID()}`,
    accountSid: state.credentials.twilio.accountSid,
    from: o.from ?? state.settings.phoneNumbers[0] ?? '+15555550100',
    to: o.to ?? '+15555550199',
    status: o.status ?? 'completed',
    direction: o.direction === 'inbound' ? 'inbound' : 'outbound-api',
    statusCallbackEvents: [],
    params: {},
    updates: [],
    createdAt: now,
    updatedAt: now,
    startTime: new Date(now.getTime() - (o.durationSeconds ?? 0) * 1000),
    endTime: now,
    telnyx: { callLegId: randomUUID(), callSessionId: randomUUID(), connectionId: 'simulated-connection' },
  };
  const event = telnyxCallEvent(call, o.eventType, o.status ?? call.status);
  if (o.callControlId === '') delete ((event.data as Record<string, unknown>).payload as Record<string, unknown>).call_control_id;
  const answer = await postTelnyxWebhook(state, url, event, o);
  return { ...answer, id: String((event.data as Record<string, unknown>).id), url };
}
