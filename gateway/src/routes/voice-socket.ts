import { ErrorBody, errorResponses } from '../schemas/common.js';
import { json, type RouteDefinition } from '../http/types.js';

const FRAMES = `The provider's media connection for a call, opened from the TwiML that \`/voice\` and \`/outbound-voice\` answer.
The upgrade request is signature-checked like every webhook (\`X-Twilio-Signature\` over the public \`wss://\` URL with its query);
a bad signature is refused with 403 before the upgrade. After \`101 Switching Protocols\` both sides exchange JSON text frames,
in the mode the call was connected with (the first frame tells which):

| mode | provider → Switchboard | Switchboard → provider |
|---|---|---|
| relay (Twilio ConversationRelay) | \`setup\`, \`prompt\` (caller's words), \`interrupt\`, \`dtmf\` | \`text\` (words to speak), \`play\`, \`end\` |
| stream (Twilio Media Streams) | \`connected\`, \`start\`, \`media\` (8 kHz μ-law, base64, 20 ms), \`mark\`, \`dtmf\`, \`stop\` | \`media\`, \`mark\`, \`clear\` (barge-in) |

OpenAPI has no WebSocket operation, so the upgrade is shown as the GET it starts as. A GET without \`Upgrade: websocket\` gets 426.`;

/**
 * `WSS /webhooks/:agentId/voice-ws` as the REST pipeline sees it. The socket layer takes every
 * upgrade request for this path (voice/voice-socket.ts); what reaches this route is a plain GET,
 * answered 426, so the path is documented by the same kind of definition as every other route.
 */
export const voiceSocketRoute: RouteDefinition = {
  method: 'GET',
  path: '/webhooks/:agentId/voice-ws',
  operationId: 'webhook_voice_ws',
  summary: 'The voice WebSocket (WSS): ConversationRelay or Media Streams frames of a live call (Twilio, signed upgrade).',
  description: FRAMES,
  tag: 'Webhooks',
  auth: 'public',
  responses: {
    101: { description: 'Switching Protocols: the WebSocket is open and carries the call’s frames (see the description).' },
    ...errorResponses(403),
    426: { description: 'Not a WebSocket upgrade (UPGRADE_REQUIRED).', schema: ErrorBody },
  },
  handler() {
    return json(
      426,
      { error: 'This is the voice WebSocket: connect with a signed WebSocket upgrade (Upgrade: websocket).', code: 'UPGRADE_REQUIRED' },
      { upgrade: 'websocket' },
    );
  },
};
