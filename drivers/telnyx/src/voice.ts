import { ErrorCodes, SwitchboardError, providerError, type CallStatusEvent, type CallStep, type PlacedCall, type Telephony } from '@switchboard/sdk';
import type Telnyx from 'telnyx';
import { statusOf } from './client.js';
import type { TelnyxSettings } from './settings.js';
import { callCommands, invalid, streamParams, type CallCommand } from './voice-commands.js';
import { readStreamStart } from './voice-stream.js';
import { parseCallWebhook } from './voice-webhooks.js';

type PlaceCallRequest = Parameters<Telephony['placeCall']>[0];

/** What a webhook answer carries: Call Control reads none, so the steps are shown as the commands they become. */
const COMMANDS_CONTENT_TYPE = 'application/json';

/**
 * Telnyx Call Control: calls dialled with their media stream (`stream_url`, both ways as PCMU RTP
 * payloads), incoming calls answered by command, steps on a live call as commands, webhooks as JSON
 * events. Only stream mode: ConversationRelay is Twilio's.
 */
export function telnyxTelephony(client: Telnyx, settings: TelnyxSettings): Telephony {
  return {
    placeCall: (request) => placeCall(client, settings, request),
    answerCall: (callSid, steps, options) => answerCall(client, settings, callSid, steps, options.statusCallbackUrl),
    updateCall: (callSid, steps) => run(client, callSid, callCommands(settings.apiKey, steps)),
    render: (steps) => ({ contentType: COMMANDS_CONTENT_TYPE, body: JSON.stringify({ commands: callCommands(settings.apiKey, steps) }) }),
    parseCallWebhook: (request) => parseCallWebhook(request),
    fetchCall: (callSid) => fetchCall(client, callSid),
    readStreamStart: (frame) => readStreamStart(frame),
  };
}

/** The one step a call placed or answered here may do: connect its media stream. */
function connectStep(steps: readonly CallStep[] | undefined): Extract<CallStep, { kind: 'connect' }> {
  const [step, ...rest] = steps ?? [];
  if (step?.kind !== 'connect' || rest.length > 0) throw invalid(`a call that does ${(steps ?? []).map((s) => s.kind).join(', ') || 'nothing'} (this driver places and answers calls with a media stream only)`);
  return step;
}

/** POST /v2/calls: dials with the stream attached, so it opens once the callee answers; events go to `statusCallbackUrl`. */
async function placeCall(client: Telnyx, settings: TelnyxSettings, request: PlaceCallRequest): Promise<PlacedCall> {
  if (!settings.connectionId) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'Set the Telnyx driver\'s connectionId (the Call Control application) to place calls.');
  const stream = streamParams(settings.apiKey, connectStep(request.steps));
  let dialled;
  try {
    dialled = await client.calls.dial({
      connection_id: settings.connectionId,
      to: request.to,
      from: request.from,
      webhook_url: request.statusCallbackUrl,
      webhook_url_method: 'POST',
      ...(request.timeoutSeconds !== undefined ? { timeout_secs: request.timeoutSeconds } : {}),
      ...stream,
    });
  } catch (err) {
    throw providerError('telnyx', err, statusOf(err));
  }
  const callSid = dialled.data?.call_control_id;
  if (!callSid) throw providerError('telnyx', new Error('the answer carries no call_control_id'), 502);
  return { callSid, status: 'queued' };
}

/** POST /v2/calls/{id}/actions/answer with the stream; the call's later events go to `statusCallbackUrl`. */
async function answerCall(client: Telnyx, settings: TelnyxSettings, callSid: string, steps: readonly CallStep[], statusCallbackUrl: string): Promise<void> {
  const stream = streamParams(settings.apiKey, connectStep(steps));
  try {
    await client.calls.actions.answer(callSid, { ...stream, webhook_url: statusCallbackUrl, webhook_url_method: 'POST' });
  } catch (err) {
    throw providerError('telnyx', err, statusOf(err));
  }
}

/** Sends the commands one after another (Call Control queues speech and playback itself). */
async function run(client: Telnyx, callSid: string, commands: readonly CallCommand[]): Promise<void> {
  const actions = client.calls.actions;
  for (const command of commands) {
    try {
      switch (command.action) {
        case 'streaming_start':
          await actions.startStreaming(callSid, command.body);
          break;
        case 'speak':
          await actions.speak(callSid, command.body as Parameters<typeof actions.speak>[1]);
          break;
        case 'playback_start':
          await actions.startPlayback(callSid, command.body);
          break;
        case 'transfer':
          await actions.transfer(callSid, command.body);
          break;
        case 'hangup':
          await actions.hangup(callSid, {});
          break;
      }
    } catch (err) {
      throw providerError('telnyx', err, statusOf(err));
    }
  }
}

/**
 * GET /v2/calls/{id}: a live call is `in-progress`; one that ended is `completed` with its
 * `call_duration`. Undefined when Telnyx does not know the call (404, or an id that is not one).
 */
async function fetchCall(client: Telnyx, callSid: string): Promise<CallStatusEvent | undefined> {
  if (!/^v[0-9]:[A-Za-z0-9_-]+$/.test(callSid)) return undefined;
  let status;
  try {
    status = await client.calls.retrieveStatus(callSid);
  } catch (err) {
    if (statusOf(err) === 404) return undefined;
    throw providerError('telnyx', err, statusOf(err));
  }
  const data = status.data;
  if (!data) return undefined;
  const duration = data.call_duration;
  return {
    type: 'call-status',
    callSid: data.call_control_id ?? callSid,
    status: data.is_alive ? 'in-progress' : 'completed',
    durationSeconds: data.is_alive ? null : typeof duration === 'number' && duration >= 0 ? Math.round(duration) : null,
    cost: null,
  };
}
