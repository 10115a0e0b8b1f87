import { readFile } from 'node:fs/promises';
import { CHANNEL_SPECS, ErrorCodes } from '@switchboard/sdk';
import type { ClientInput } from '@switchboard/runtime';
import { fail } from '../http/errors.js';
import { traceparentOf, withTrace } from '../http/trace.js';
import { json, type HttpRequest, type RouteContext, type RouteDefinition } from '../http/types.js';
import { contactRefusals, errorResponses } from '../schemas/common.js';
import { WebhookAcks } from '../schemas/webhooks.js';
import {
  CallOnBehalfBody,
  CallOnBehalfResponse,
  MakeCallBody,
  MakeCallResponse,
  SendVoiceMessageBody,
  SendVoiceMessageResponse,
  TransferCallBody,
  TransferCallResponse,
} from '../schemas/voice.js';
import { resolveAgentId } from './agent-access.js';
import type { RouteDeps } from './deps.js';

/** Voice operations (REST), the provider's voice webhooks, and the voice-message audio files. */
export function voiceRoutes(deps: RouteDeps): RouteDefinition[] {
  const { ports } = deps;
  const operation = <K extends 'sendVoiceMessage' | 'makeCall' | 'callOnBehalf' | 'transferCall'>(
    path: string,
    operationId: string,
    summary: string,
    body: RouteDefinition['body'],
    response: RouteDefinition['body'],
    op: K,
  ): RouteDefinition => ({
    method: 'POST',
    path,
    operationId,
    summary,
    tag: 'Voice',
    auth: 'token',
    scope: 'call',
    body,
    idempotent: true,
    responses: { 200: { description: 'Done.', schema: response! }, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 502), ...(op === 'transferCall' ? errorResponses(403) : contactRefusals()) },
    async handler({ body: input, principal, request: http }: RouteContext<{ agentId?: string }>) {
      const agentId = resolveAgentId(principal, input.agentId);
      const { agentId: _named, ...fields } = input;
      // A call placed with the agent's W3C trace context carries it into its log lines and webhooks.
      const traceparent = op === 'makeCall' || op === 'callOnBehalf' ? traceparentOf(http.headers.traceparent) : undefined;
      const request = { ...fields, ...withTrace(traceparent) };
      // The route's body schema is the operation's input, less the agent (checked again at the bus edge).
      return json(200, await ports.agents.call<K>(op, agentId, ...([request as ClientInput<K>] as const)));
    },
  });
  const webhook = (path: string, operationId: string, summary: string, op: 'incomingCall' | 'outboundAnswer' | 'callStatus' | 'callRecorded'): RouteDefinition => ({
    method: 'POST',
    path,
    operationId,
    summary,
    tag: 'Webhooks',
    auth: 'public',
    bodyLimit: 'webhook',
    // Twilio posts forms (the voice table entry's default); a driver that posts otherwise (Telnyx: JSON) says so in its webhook capability.
    rawBody: [...(ports.webhooks.contentTypes('voice') ?? CHANNEL_SPECS.voice.webhook.contentTypes)],
    responses: { 200: op === 'callStatus' || op === 'callRecorded' ? WebhookAcks.callStatus : WebhookAcks.voice, ...errorResponses(400, 403, 404, 413, 415) },
    async handler({ request, params }: RouteContext) {
      const payload = webhookPayload(deps, request);
      // Checked here, before the bus; the agent-less status route then finds its agent through the call.
      const signed = await ports.voice.verify(payload);
      const agentId = params.agentId ?? (await (op === 'callRecorded' ? ports.voice.agentOfRecording(signed) : ports.voice.agentOfCall(signed)));
      if (!agentId) fail(ErrorCodes.NOT_FOUND, 'No call with this CallSid was placed or received here.');
      const answer = await ports.agents.call(op, agentId, payload);
      return { status: answer.status, headers: { 'content-type': answer.contentType }, body: answer.body };
    },
  });
  return [
    operation('/api/v1/make-call', 'makeCall', 'Place a live AI call from the agent\'s number (relay or stream mode).', MakeCallBody, MakeCallResponse, 'makeCall'),
    operation(
      '/api/v1/call-on-behalf',
      'callOnBehalf',
      'A secretary call: ring the target, say who is calling and why, and bridge to the requester on yes (else take a message).',
      CallOnBehalfBody,
      CallOnBehalfResponse,
      'callOnBehalf',
    ),
    operation(
      '/api/v1/send-voice-message',
      'sendVoiceMessage',
      'Synthesise a message, keep it as a WAV at an unguessable URL, and place a call that plays it.',
      SendVoiceMessageBody,
      SendVoiceMessageResponse,
      'sendVoiceMessage',
    ),
    operation('/api/v1/transfer-call', 'transferCall', 'Transfer a live call to another number, with an optional announcement.', TransferCallBody, TransferCallResponse, 'transferCall'),
    webhook('/webhooks/:agentId/voice', 'webhook_voice', 'An incoming call (Twilio, signed): answered with TwiML that attaches it to the voice WebSocket.', 'incomingCall'),
    webhook('/webhooks/:agentId/outbound-voice', 'webhook_outbound_voice', 'An answered outbound call fetching its TwiML (Twilio, signed).', 'outboundAnswer'),
    webhook('/webhooks/:agentId/call-status', 'webhook_call_status', 'Call status callbacks (Twilio, signed): call log, duration, cost.', 'callStatus'),
    webhook('/webhooks/voice/status', 'webhook_voice_status', 'Call status callbacks for any agent (Twilio, signed): the call is found by its CallSid; an unknown call is 404.', 'callStatus'),
    webhook(
      '/webhooks/voice/recording',
      'webhook_voice_recording',
      "Recording status callbacks (Twilio, signed) of relay calls the provider recorded: the call is found by its CallSid, the recording fetched with the provider's credentials and stored; an unknown call is 404.",
      'callRecorded',
    ),
    {
      method: 'GET',
      path: '/media/voice-messages/:name',
      operationId: 'voiceMessageAudio',
      summary: 'A voice message WAV file, at its unguessable URL.',
      tag: 'Voice',
      auth: 'public',
      responses: { 200: { description: 'WAV audio.', contentType: 'audio/wav' }, ...errorResponses(404) },
      async handler({ params }: RouteContext) {
        const path = ports.voice.voiceMessagePath(params.name ?? '');
        const audio = path ? await readFile(path).catch(() => undefined) : undefined;
        if (!audio) fail(ErrorCodes.NOT_FOUND, 'No such voice message.');
        return { status: 200, headers: { 'content-type': 'audio/wav', 'cache-control': 'private, max-age=3600' }, body: audio };
      },
    },
  ];
}

/** A provider webhook as the runtime's voice operations take it: the exact public URL and raw body. */
export function webhookPayload(deps: RouteDeps, request: HttpRequest) {
  return {
    method: request.method,
    url: `${deps.publicBaseUrl}${request.path}${request.queryString ? `?${request.queryString}` : ''}`,
    headers: request.headers,
    rawBodyBase64: request.rawBody.toString('base64'),
  };
}
