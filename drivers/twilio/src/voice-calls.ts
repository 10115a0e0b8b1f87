import { ErrorCodes, SwitchboardError, providerError, type CallStatusEvent, type CallStep, type PlacedCall, type Telephony } from '@switchboard/sdk';
import type twilio from 'twilio';
import { priceToCost } from './messaging.js';
import { isCallSid } from './sids.js';
import { renderTwiml } from './voice-twiml.js';

type CallCreateOptions = Parameters<twilio.Twilio['calls']['create']>[0];
type PlaceCallRequest = Parameters<Telephony['placeCall']>[0];

/** Every progress event Twilio can post for a call, so the call log sees each transition. */
export const STATUS_CALLBACK_EVENTS = ['initiated', 'ringing', 'answered', 'completed'];

/** Places a call through the Calls resource; Twilio fetches `answerUrl` once it is answered. */
export async function placeCall(client: twilio.Twilio, request: PlaceCallRequest): Promise<PlacedCall> {
  const params: CallCreateOptions = {
    to: request.to,
    from: request.from,
    url: request.answerUrl,
    method: 'POST',
    statusCallback: request.statusCallbackUrl,
    statusCallbackMethod: 'POST',
    statusCallbackEvent: STATUS_CALLBACK_EVENTS,
  };
  if (request.timeoutSeconds !== undefined) params.timeout = request.timeoutSeconds;
  try {
    const call = await client.calls.create(params);
    return { callSid: call.sid, status: call.status };
  } catch (err) {
    throw providerError('twilio', err, statusOf(err));
  }
}

/**
 * Replaces what a live call does with the steps' TwiML. A lone hang-up ends the call with
 * `Status=completed` instead, which also works on a call that has not fetched TwiML yet.
 */
export async function updateCall(client: twilio.Twilio, callSid: string, steps: readonly CallStep[]): Promise<void> {
  // The SDK puts the sid into the URL path as it is: only a real call SID may get there.
  if (!isCallSid(callSid)) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'callSid must be a Twilio call SID: CA and 32 hex digits.');
  const hangUp = steps.length === 1 && steps[0]!.kind === 'hangup';
  const update = hangUp ? { status: 'completed' as const } : { twiml: renderTwiml(steps).body };
  try {
    await client.calls(callSid).update(update);
  } catch (err) {
    throw providerError('twilio', err, statusOf(err));
  }
}

/** Fetches a call (Calls `fetch`) as a status callback would carry it; undefined when Twilio does not know the SID. */
export async function fetchCall(client: twilio.Twilio, callSid: string): Promise<CallStatusEvent | undefined> {
  if (!isCallSid(callSid)) return undefined;
  let call;
  try {
    call = await client.calls(callSid).fetch();
  } catch (err) {
    if (statusOf(err) === 404) return undefined;
    throw providerError('twilio', err, statusOf(err));
  }
  const duration = Number.parseInt(String(call.duration ?? ''), 10);
  return {
    type: 'call-status',
    callSid: call.sid,
    // As in a status callback: `initiated` (dialling started) counts as `queued`.
    status: call.status === ('initiated' as string) ? 'queued' : call.status,
    durationSeconds: Number.isInteger(duration) && duration >= 0 ? duration : null,
    cost: priceToCost(call.price),
    from: call.from,
    to: call.to,
    direction: call.direction === 'inbound' ? 'inbound' : 'outbound',
  };
}

function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}
