import type { Telephony } from '@switchboard/sdk';
import type twilio from 'twilio';
import { fetchCall, placeCall, updateCall } from './voice-calls.js';
import { renderTwiml } from './voice-twiml.js';
import { parseCallWebhook } from './voice-webhooks.js';

/** Twilio Programmable Voice: calls through the Calls resource, TwiML built by the SDK. */
export function twilioTelephony(client: twilio.Twilio): Telephony {
  return {
    placeCall: (request) => placeCall(client, request),
    updateCall: (callSid, steps) => updateCall(client, callSid, steps),
    render: (steps) => renderTwiml(steps),
    parseCallWebhook: (request) => parseCallWebhook(request),
    fetchCall: (callSid) => fetchCall(client, callSid),
  };
}
