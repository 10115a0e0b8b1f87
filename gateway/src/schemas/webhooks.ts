import { Type } from '@sinclair/typebox';
import type { RouteResponse } from '../http/types.js';

/** The empty TwiML document Twilio's SDK writes: "received, nothing to send back". */
export const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

const TwimlAck = Type.String({ description: 'Empty TwiML.', examples: [EMPTY_TWIML] });

const VoiceTwiml = Type.String({
  description:
    'TwiML that attaches the call to the voice WebSocket: `<Connect><ConversationRelay url="wss://…/webhooks/{agentId}/voice-ws?…"/>` in relay mode, ' +
    '`<Connect><Stream url="…"/>` in stream mode; a voice message’s call gets `<Play>` then `<Hangup/>`.',
  examples: [
    '<?xml version="1.0" encoding="UTF-8"?><Response><Connect><ConversationRelay url="wss://switchboard.example.com/webhooks/agent-1/voice-ws?session=vs_01" welcomeGreeting="Hello!"/></Connect></Response>',
  ],
});

const EmailAck = Type.Object({ ok: Type.Literal(true) }, { examples: [{ ok: true }] });

const LineAck = Type.Object({}, { additionalProperties: false, description: 'Always {}.', examples: [{}] });

/** A blocked channel's answer: 200 with an empty body, and nothing else happens. */
const Blocked = { contentType: 'text/plain', schema: Type.String({ maxLength: 0, description: 'Empty: the channel is blocked for this agent.' }) };

const STORED = 'Verified and stored (or a retry of a stored event): the provider’s acknowledgement. A blocked channel answers 200 with an empty text/plain body.';

/** The 200 each provider webhook answers with, per the contract. */
export const WebhookAcks = {
  sms: { description: STORED, contentType: 'text/xml', schema: TwimlAck, alternative: Blocked },
  whatsapp: { description: STORED, contentType: 'text/xml', schema: TwimlAck, alternative: Blocked },
  email: { description: STORED, contentType: 'application/json', schema: EmailAck, alternative: Blocked },
  line: { description: STORED, contentType: 'application/json', schema: LineAck, alternative: Blocked },
  voice: {
    description: 'TwiML for the call. A blocked voice channel answers 200 with an empty text/plain body.',
    contentType: 'text/xml',
    schema: VoiceTwiml,
    alternative: Blocked,
  },
  callStatus: { description: 'Recorded (call log, duration, cost): empty TwiML.', contentType: 'text/xml', schema: TwimlAck },
} satisfies Record<string, RouteResponse>;
