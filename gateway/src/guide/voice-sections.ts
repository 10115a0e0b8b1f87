/** The integration guide's sections on voice: live calls, voice messages and transfers, and calls as MCP tasks. */
export function voiceSections(baseUrl: string): string {
  return `## Voice

- \`POST ${baseUrl}/api/v1/make-call\` \`{"to":"+14155550123","greeting":"…","systemPrompt":"…","mode":"relay"|"stream"}\`
  places a live AI call from the agent's number. \`relay\`: the provider does speech recognition and
  synthesis (ConversationRelay); \`stream\`: Switchboard does (Media Streams, speech-to-text, TTS,
  barge-in). make-call, call-on-behalf and send-voice-message are refused like messages when the contact
  policy says no (\`RECIPIENT_OPTED_OUT\`, \`OUTSIDE_CALLING_HOURS\`, \`CONSENT_REQUIRED\` for an
  \`automated-call\` consent; see "Contacting people lawfully").
- Each turn of a call is answered by the agent: over MCP, a session that declared the \`sampling\`
  capability gets \`sampling/createMessage\` with the conversation so far and its reply is spoken;
  otherwise your callback URL gets a signed \`call.turn\` event (\`data.text\` is what the caller
  said, \`data.transcript\` the conversation) and answers \`{"text":"…","end":false,"transferTo":"+1…"}\`.
  With neither, an incoming call is an answering machine: the caller's message waits as a \`voicemail\`
  dead letter (and a \`voicemail\` callback event when a callback URL is set). A call you placed says
  its greeting instead and passes the callee's reply on as an inbound \`voice\` message (a live
  session's notification, else \`message.inbound\` to your callback URL, else an \`agent_offline\`
  dead letter).
- Tracing: send your W3C \`traceparent\` header with make-call or call-on-behalf (over MCP, put it in the
  tool call's \`_meta.traceparent\`). Every webhook of that call (\`call.status\`, \`call.turn\`,
  \`voicemail\`) carries it back, as a \`traceparent\` header and field, the server's log lines of the
  call carry it, and \`GET /api/v1/calls/<callId>\` shows it. When the server exports OpenTelemetry traces
  (its operator set \`OTEL_*\`), every REST request's and MCP tool call's \`traceparent\` is the parent of
  its spans, and each webhook's \`traceparent\` header is the post's own span in that trace (a message's
  status webhooks continue the trace of its send).
- \`POST ${baseUrl}/api/v1/call-on-behalf\` \`{"target","targetName","requesterPhone","requesterName","message"}\`:
  a secretary call — it says who is calling and why, asks whether they take the call, bridges to the
  requester on yes and otherwise takes a message that reaches you.
- \`POST ${baseUrl}/api/v1/send-voice-message\` \`{"to","text","voice"}\`: synthesises the text, keeps it as
  a WAV file at an unguessable URL (\`audioUrl\`, with its real \`durationSeconds\`) and calls to play it.
- \`POST ${baseUrl}/api/v1/transfer-call\` \`{"callSid","to","announcementText"}\`: moves a live call.
- Call status arrives as \`call.status\` events; the call log keeps direction, status, duration and cost.
  Every call gets one, even when the provider's status callbacks stop (Switchboard asks the provider), or
  \`unknown\` with a \`reason\` at \`RECONCILE_BOUND_MS\`.
  The event that ends a call (\`completed\`, \`busy\`, \`no-answer\`, \`failed\`, \`canceled\`, \`unknown\`) also carries
  \`data.summary\`: \`{durationSeconds, turns, turnLatencyMs:{p50,p95}|null, switchboardAddedMs:{p95}|null}\`.
- \`GET ${baseUrl}/api/v1/calls\` \`?status&direction=inbound|outbound&since&until&limit&cursor\` lists calls
  newest first (\`{calls, nextCursor}\`; pass \`nextCursor\` back as \`cursor\` for the next page), and
  \`GET ${baseUrl}/api/v1/calls/<callSid or sessionId>\` (MCP \`comms_get_call\` with \`callId\`) gives one
  call: status, parties, timing, cost, its summary, its transcript (each line with its turn, and
  \`interrupted\` where the caller spoke over it) and its latency \`ledger\`. A client token sees its own
  agent's calls only (another agent's call is 404). The ledger has the greeting (turn 0: from the media
  stream's start to its first frame) and one entry per caller turn: \`at\` is when the caller stopped
  speaking (stream: when our endpointing decided, \`endpointingMs\` of silence after the last speech;
  relay: when the provider's prompt arrived); \`stamps\` are ms after it (\`transcriptReady\`,
  \`agentAsked\`, \`replyBegan\`, \`replyEnded\`, \`ttsAsked\`, \`ttsFirstAudio\`, \`firstFrameSent\`; null
  where the mode has no such step); \`components\` split \`latencyMs\` into speech-to-text, agent,
  text-to-speech and \`switchboardMs\` (everything else); \`bargeIns\` say when the caller spoke over the
  reply and how long it took to stop (\`stopMs\`; null in relay mode, where the provider stops it);
  \`unanswered\` is null for a turn that got its reply, else why it did not: \`call-ended\` (the call
  ended before the reply's first frame left), \`no-reply\` (the agent had nothing to say), \`failed\`
  (saying it failed) or \`not-transcribed\` (stream: speech-to-text gave no words for an utterance our
  endpointing heard; the turn has no transcript line). The ledger and transcript are written when the call's media connection closes.
  A send-voice-message call has no media connection and no ledger; its transcript is one agent line (turn 0), the text it played.
- **Recordings** are off by default. Ask for one per call with \`"record": true\` on make-call (and
  \`comms_make_call\`), or for every call of an agent with \`"recordCalls": true\` when it is provisioned.
  Both legs go in one WAV file: in stream mode Switchboard writes it (8 kHz 16-bit PCM, the caller on the
  left channel, you on the right); in relay mode the provider records the call and Switchboard fetches it.
  Once stored, the call has \`recording: {url, durationSeconds, recordedAt}\` (null otherwise; \`durationSeconds\` is the
  WAV's own length, in relay mode too, not the provider's whole seconds); GET the
  \`url\` (\`${baseUrl}/api/v1/calls/<callId>/recording\`) with your token. Only the agent that owns the
  call and the operator may fetch it (another agent's is 404, a team token 403). Recordings are deleted
  after the operator's retention. Telling the other party that the call is recorded is yours to do, in
  your greeting.

Point Twilio's voice webhook at \`${baseUrl}/webhooks/<agentId>/voice\` and its status callback at
\`…/call-status\` (or at \`${baseUrl}/webhooks/voice/status\`, which finds the agent by the call's
\`CallSid\`); recordings Twilio makes post to \`${baseUrl}/webhooks/voice/recording\`; the media WebSocket
(\`wss://…/webhooks/<agentId>/voice-ws\`) is signed like every webhook.

## Calls as MCP tasks

A call runs for minutes after \`comms_make_call\` or \`comms_call_on_behalf\` answers (for
\`comms_wait_for_reply\` as a task, see "Wait for a reply"). An MCP 2026-07-28
request that declares the Tasks extension in its capabilities
(\`_meta["io.modelcontextprotocol/clientCapabilities"] = {"extensions":{"io.modelcontextprotocol/tasks":{}}}\`;
\`server/discover\` lists it under \`capabilities.extensions\`) gets a task instead of the placed call:
\`{"resultType":"task","taskId":"…","status":"working","createdAt":"…","lastUpdatedAt":"…","ttlMs":86400000,"pollIntervalMs":2000}\`.
Requests without it, and 2025-era sessions, get the same answer as before.

- \`tasks/get\` \`{"taskId"}\` (header \`Mcp-Name: <taskId>\`): \`working\` while the call rings or talks;
  \`completed\` once it is over, with \`result\` holding the outcome as \`structuredContent\` (and JSON
  text): \`callId\`, \`answered\`, \`status\`, \`from\`, \`to\`, \`connectedAt\`, \`endedAt\`,
  \`durationSeconds\`, \`cost\`, \`summary\` and the \`transcript\` lines. A call that was not answered
  (busy, no-answer, failed) is \`completed\` too, with \`answered: false\` and \`isError: true\`.
- \`tasks/cancel\` \`{"taskId"}\` hangs the call up; the task then reads \`cancelled\`. A call already over
  keeps its outcome. \`tasks/update\` is acknowledged (a call task never asks for input).
- Tasks are stored: any gateway answers, also after a restart, for 24 hours. Only the token that made
  a task sees it (an OAuth access token: its grant, the same issuer, \`sub\` and \`client_id\`, so a
  refreshed token keeps its tasks); an unknown, another token's or expired task is -32602, and a request
  without the extension declared gets -32021. An access token also needs the operation's scope:
  \`switchboard:read\` for \`tasks/get\` and \`tasks/update\`, \`switchboard:call\` to cancel a call task
  (\`switchboard:read\` a reply task); without it, -32602 naming the scope. Status changes are not pushed (\`notifications/tasks\`): poll
  \`tasks/get\` every \`pollIntervalMs\`.`;
}
