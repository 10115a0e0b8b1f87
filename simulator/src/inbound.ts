import { sendInboundLine } from './line/inbound-events.js';
import { sendEmailEvent, sendInboundEmail } from './resend/inbound-email.js';
import { sendPostmarkEvent, sendPostmarkInbound } from './postmark/postmark-webhooks.js';
import type { SimulatorState } from './simulator-state.js';
import { sendTelnyxCallEvent } from './telnyx/telnyx-call-events.js';
import { sendInboundTelnyxMessage, sendTelnyxStatus } from './telnyx/telnyx-webhooks.js';
import { sendInboundMessage, sendMessageStatus } from './twilio/inbound-messages.js';
import { sendRecordingStatus } from './twilio/recordings.js';
import type { InboundSenders } from './inbound-types.js';
import { sendInboundCloudMessage } from './whatsapp-cloud/cloud-webhooks.js';

/** The inbound senders of a simulator, one per provider webhook. */
export function inboundSenders(state: SimulatorState): InboundSenders {
  return {
    sms: async (o) => sendInboundMessage(state, 'sms', o),
    whatsapp: async (o) => sendInboundMessage(state, 'whatsapp', o),
    messageStatus: async (o) => sendMessageStatus(state, o),
    telnyxSms: async (o) => sendInboundTelnyxMessage(state, o),
    telnyxStatus: async (o) => sendTelnyxStatus(state, o),
    telnyxCallEvent: async (o) => sendTelnyxCallEvent(state, o),
    recordingStatus: async (o) => sendRecordingStatus(state, o),
    email: async (o) => sendInboundEmail(state, o),
    emailEvent: async (o) => sendEmailEvent(state, o),
    postmarkEmail: async (o) => sendPostmarkInbound(state, o),
    postmarkEvent: async (o) => sendPostmarkEvent(state, o),
    line: async (o) => sendInboundLine(state, o),
    whatsappCloud: async (o) => sendInboundCloudMessage(state, o),
  };
}
