import type { Telephony } from '@switchboard/sdk';
import type twilio from 'twilio';
import { fetchCall, placeCall, updateCall } from './voice-calls.js';
import { renderTwiml } from './voice-twiml.js';
import { parseCallWebhook } from './voice-webhooks.js';
import { twilioRecording } from './voice-recording.js';
import type { TwilioSettings } from './settings.js';

/** Twilio Programmable Voice: calls through the Calls resource, TwiML built by the SDK, recordings Twilio makes. */
export function twilioTelephony(client: twilio.Twilio, settings: TwilioSettings): Telephony {
  return {
    placeCall: (request) => placeCall(client, request),
    updateCall: (callSid, steps) => updateCall(client, callSid, steps),
    render: (steps) => renderTwiml(steps),
    parseCallWebhook: (request) => parseCallWebhook(request),
    recording: twilioRecording(client, settings),
    fetchCall: (callSid) => fetchCall(client, callSid),
  };
}
