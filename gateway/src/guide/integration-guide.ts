import { MAX_JSON_DEPTH } from '../http/json-depth.js';

/**
 * The integration guide served at /api/v1/integration-guide, with this gateway's own URL filled in
 * so the examples run as they stand.
 */
export function integrationGuide(baseUrl: string): string {
  return `# Switchboard integration guide

Switchboard gives your agent real communication channels. This guide shows how to connect.
Every example uses this gateway's address, \`${baseUrl}\`.

From TypeScript, \`@switchboard/client\` is a typed
client generated from this server's OpenAPI document: every REST call below as
\`client.GET/POST(...)\`, with its types, plus \`sendMessage\` with an idempotency key, the inbox as an async
iterator that follows its cursor, and \`waitForReply\`. \`npm install @switchboard/client\`, then
\`createClient({ baseUrl: '${baseUrl}', token: process.env.CLIENT_TOKEN })\`. For a person debugging an
agent, \`SWITCHBOARD_TOKEN=<token> npx switchboard tail --agent <agentId> --url ${baseUrl}\` prints the
agent's inbox live, one line per entry.

## Tokens

| token | where you get it | what it may do |
|---|---|---|
| orchestrator | printed once at first start (or \`ORCHESTRATOR_TOKEN\`) | everything, including \`/admin/api/*\` |
| team | \`GET /admin/api/my-token\` with the orchestrator token | all of \`/api/v1/*\` for any agent, provisioning, MCP for any agent |
| client | returned once by provisioning as \`securityToken\` | \`/api/v1/*\` and MCP for its own agent only; another agent is 403 \`FORBIDDEN\` |
| access token | an OAuth 2.1 authorization server the operator names (see below) | what its scopes allow, for its agent only; never provisioning or \`/admin/api/*\` |

Send it as \`Authorization: Bearer <token>\`. Errors always look like
\`{"error": "<sentence>", "code": "<STABLE_CODE>"}\`; match on \`code\`. A field a route does not take
is refused, never ignored: 400 \`BAD_REQUEST\` naming it and the allowed ones
(\`Unknown field bodyy in body; allowed: agentId, channel, to, body, …\`, each in \`details\`), for JSON
bodies, query parameters and MCP tool arguments alike. A token-authorised \`/api/v1\` route that lists no
query parameters (the POST and PUT routes, for instance) refuses any (\`?agentId=\` on send-message is 400,
\`it takes no fields\`); only the public ones (health, the OpenAPI document, this guide) ignore a query.
An access token without the route's scope is refused (403) before its input is checked. A body nesting objects and arrays deeper than
${MAX_JSON_DEPTH} levels is refused too (400 \`BAD_REQUEST\`).

## Connect over MCP

Switchboard is an MCP server with the tools \`comms_send_message\`, \`comms_make_call\`,
\`comms_call_on_behalf\`, \`comms_send_voice_message\`, \`comms_transfer_call\`, \`comms_set_callback_url\`,
\`comms_get_waiting_messages\`, \`comms_get_channel_status\`, \`comms_get_usage\`, \`comms_get_billing\`,
\`comms_get_call\`, \`comms_inbox_read\`, \`comms_inbox_ack\`, \`comms_list_conversations\`, \`comms_get_conversation\`, \`comms_link_contacts\`,
\`comms_record_consent\`, \`comms_revoke_consent\`, \`comms_check_consent\`, \`comms_do_not_contact\`, \`comms_wait_for_reply\`, \`comms_provision_channels\`, \`comms_deprovision_channels\` and \`comms_ping\` — each takes the same
fields as its REST route below (\`comms_get_call\` takes the route's \`callId\` as an argument; \`comms_wait_for_reply\` takes \`timeoutSeconds\` instead of \`wait\`, see "Wait for a reply") and returns the same JSON, as \`structuredContent\` (each tool declares
an \`outputSchema\`) and as JSON text; failures are \`isError\` results carrying the error body. The
tools are listed in a fixed order. One endpoint, \`${baseUrl}/mcp\` with \`Authorization: Bearer <token>\`
(add \`?agentId=<id>\` to act for, and receive, that agent), serves both protocol eras:

- **MCP 2026-07-28** (stateless): no \`initialize\` and no session; every POST carries its protocol
  version, client info and capabilities in \`_meta\` (\`io.modelcontextprotocol/protocolVersion\`, …)
  and the \`MCP-Protocol-Version\`, \`Mcp-Method\` and \`Mcp-Name\` headers, and any gateway of a
  cluster answers it. Served: \`server/discover\`, \`tools/list\` (with \`ttlMs\` and \`cacheScope\`:
  5 minutes, private), \`tools/call\`, the Tasks extension (calls as tasks, below), the inbox
  resources and \`subscriptions/listen\` (see "Listen for inbox updates" below), and an empty prompt
  list; every result has
  \`resultType\`. A request without \`_meta\` is refused with -32602, an unsupported version with -32022
  (the data names the supported ones), headers that disagree with the body with -32020, an unknown
  tool with -32602; methods the revision removed (\`ping\`, \`initialize\`, \`logging/setLevel\`) are
  404 with -32601. A W3C \`traceparent\` in \`_meta\` is written
  to the server's log line of the request. With the official TypeScript SDK 2.x:
  \`new Client(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } })\` (or \`mode: 'auto'\`) and
  \`new StreamableHTTPClientTransport(new URL('${baseUrl}/mcp?agentId=support-bot'), { requestInit: { headers: { Authorization: 'Bearer <client token>' } } })\`
  from \`@modelcontextprotocol/client\`. Live inbound messages: listen for inbox updates (below).
- **MCP 2025-03-26, 2025-06-18 and 2025-11-25** (Streamable HTTP with sessions): \`initialize\` opens a
  session named by \`Mcp-Session-Id\`, and \`GET /mcp\` opens its stream. With the SDK 1.x, or 2.x in
  its default \`legacy\` mode: \`new StreamableHTTPClientTransport(new URL('${baseUrl}/mcp?agentId=support-bot'), { requestInit: { headers: { Authorization: 'Bearer <client token>' } } })\`
  from \`@modelcontextprotocol/sdk/client/streamableHttp.js\`. A client configuration looks like
  \`{"mcpServers":{"switchboard":{"type":"http","url":"${baseUrl}/mcp?agentId=support-bot","headers":{"Authorization":"Bearer <client token>"}}}}\`.
- **HTTP+SSE** (deprecated; kept for old clients): \`${baseUrl}/sse?token=<token>&agentId=<id>\`; the
  first event names the \`/messages?sessionId=…\` URL to POST to; each POST carries the same token as
  \`Authorization: Bearer <token>\` (the session id alone is not a credential).

The MCP routes answer only requests whose \`Host\` (and \`Origin\`, when a browser sends one) names
this server: its public URL, loopback, or a name listed in the \`ALLOWED_HOSTS\` setting.

A session opened with \`agentId\` receives that agent's inbound messages as \`notifications/message\`
with \`logger: "switchboard.inbound"\` (delivery receipts as \`switchboard.status\`), and on connect one
\`switchboard.waiting\` notice with the number of waiting messages — fetching them stays an explicit
\`comms_get_waiting_messages\` call. A newer session for the same agent replaces the older one. Tool
calls that omit \`agentId\` act for the session's agent. One token holds a bounded number of sessions
on a gateway (64 by default): one more closes that token's longest idle session. A session with no open
stream and no request for a while (5 minutes by default) is closed. A closed session answers 404
\`NOT_FOUND\`: initialize a new one (connect again). Try it with the MCP Inspector (Node.js 22.19 or
later): \`npx @modelcontextprotocol/inspector\`, transport "Streamable HTTP", URL \`${baseUrl}/mcp\`, header
\`Authorization: Bearer <token>\`; or its CLI:
\`npx @modelcontextprotocol/inspector --cli ${baseUrl}/mcp --transport http --header "Authorization: Bearer <token>" --method tools/list\`
(\`--method tools/call --tool-name comms_ping\` checks the connection).

## OAuth 2.1 access tokens

When the operator sets \`OAUTH_AUTHORIZATION_SERVERS\`, \`/api/v1/*\` and \`/mcp\` also accept JWT access
tokens from those authorization servers, beside the static tokens above. The server is an OAuth 2.1
resource server:

- **Discovery** (RFC 9728): \`GET ${baseUrl}/.well-known/oauth-protected-resource\` (the REST API) and
  \`GET ${baseUrl}/.well-known/oauth-protected-resource/mcp\` (the MCP endpoint) name the
  \`resource\` URI, the \`authorization_servers\` and the \`scopes_supported\`. A request without a token is
  answered 401 with \`WWW-Authenticate: Bearer resource_metadata="…"\` pointing at it, so MCP clients
  find the authorization server on their own.
- **Audience** (RFC 8707): ask for the token with \`resource=<the resource URI>\` (the MCP endpoint's is
  the API's with \`/mcp\`); a token for another audience, from another issuer, expired (within the
  configured clock skew) or badly signed is answered 401 with \`error="invalid_token"\`.
- **Agent**: the token's \`switchboard_agent\` claim (the operator may name another, e.g. \`sub\`) is
  the agent it acts for, like a client token; naming another agent is 403 \`FORBIDDEN\`. A token issued
  (\`iat\`, in whole seconds) before that agent was provisioned was issued for an earlier agent under the
  same \`agentId\` and is answered 401 with \`error="invalid_token"\`: get a new one.
- **Scopes**: \`switchboard:send\` (any message channel) or \`switchboard:send:<channel>\` (\`sms\`, \`email\`,
  \`whatsapp\`, \`line\`) for send-message; \`switchboard:call\` for make-call, call-on-behalf,
  send-voice-message and transfer-call; \`switchboard:read\` for waiting-messages, channel-status, usage,
  billing, calls (and their recordings), the inbox (reading and acknowledging), conversations, waiting
  for a reply, checking and revoking consents and do-not-contact (honouring a person's wish never waits
  for a scope); \`switchboard:configure\` for callback-url, link-contacts, recording a consent and deprovision. Provisioning takes
  the team token (an access token is 403 \`FORBIDDEN\` there, with no scope to ask for), and
  \`/admin/api/*\` never takes an access token. The OpenAPI document lists each operation's scope under
  \`accessToken\` in its \`security\`. A missing scope is 403 with
  \`WWW-Authenticate: Bearer error="insufficient_scope", scope="switchboard:send:sms"\`: get a token with that
  scope and retry (over MCP too: the \`tools/call\` POST is answered 403 with that challenge, and the next
  request with the new token on the same session carries its rights).
- **Never in a query string**: \`?access_token=\` or \`?token=\` on \`/api/v1/*\` or \`/mcp\` is refused
  with 400 \`BAD_REQUEST\`. Only the deprecated \`/sse\` still reads \`?token=\`.

For example, with the client_credentials grant:

\`\`\`sh
TOKEN=$(curl -s <token endpoint of the authorization server> -u "$CLIENT_ID:$CLIENT_SECRET" \\
  -d grant_type=client_credentials -d resource=${baseUrl}/mcp -d 'scope=switchboard:send switchboard:read' | jq -r .access_token)
\`\`\`

and connect to \`${baseUrl}/mcp\` with \`Authorization: Bearer $TOKEN\` as above.

## Provision an agent

\`\`\`sh
curl -s ${baseUrl}/api/v1/provision \\
  -H "Authorization: Bearer $TEAM_TOKEN" -H 'Content-Type: application/json' \\
  -d '{"agentId":"support-bot","displayName":"Support bot","channels":["sms","email"]}'
\`\`\`

The answer holds the agent's addresses and its \`securityToken\`, shown once: keep it.
If a pool is empty the answer is 409 \`POOL_EXHAUSTED\` and nothing is taken.
Send \`Idempotency-Key: <unique>\` on any POST or PUT to make a retry safe. A retry that arrives
while the first request is still running (or is being finished after a server died) gets 409
\`CONFLICT\` with \`Retry-After\`; retry again to get the first request's answer.

## Send a message

\`\`\`sh
curl -s ${baseUrl}/api/v1/send-message -H "Authorization: Bearer $CLIENT_TOKEN" \\
  -H 'Content-Type: application/json' \\
  -d '{"channel":"sms","to":"+14155550123","body":"Your order has shipped."}'
\`\`\`

Channels: \`sms\` and \`whatsapp\` (\`to\` is E.164), \`email\` (\`subject\` required, \`html\` optional),
\`line\` (\`to\` is a LINE user id). The from-address is the agent's provisioned one, or, when the
operator gave the channel a second provider and the first provably did not take the message, the
agent's sender at the second. The answer carries \`messageId\`, the provider's \`externalId\`,
\`status\`, \`cost\` (USD), \`from\` and \`provider\` (which one took it); \`message.status\` events carry
\`provider\` too.
Errors you should handle: \`CHANNEL_NOT_PROVISIONED\` (409), \`CHANNEL_BLOCKED\` (403),
\`RECIPIENT_OPTED_OUT\`, \`EMAIL_SUPPRESSED\`, \`OUTSIDE_CALLING_HOURS\` and \`CONSENT_REQUIRED\` (403: the contact policy refused it, see
"Contacting people lawfully" below), \`WHATSAPP_WINDOW_CLOSED\` (409: free-form WhatsApp outside the 24-hour
window, see below), \`PROVIDER_ERROR\` (502:
the provider refused after retries; the message also waits as a \`send_failed\` dead letter).

## WhatsApp: the 24-hour window and templates

WhatsApp lets a business send free-form text to a person only within 24 hours of that person's last
message to it (the customer service window). Outside it, only a template the provider approved may go.
Switchboard keeps the window per conversation from the last inbound WhatsApp message it stored:

- A free-form WhatsApp send outside the window is refused before any provider is called: 409
  \`WHATSAPP_WINDOW_CLOSED\`, saying when the window closed (or that the person never wrote), with
  \`details: [{to, open, closesAt, lastInboundAt}]\`. Nothing is stored or sent; send a template instead.
- The inbox entry of an inbound WhatsApp message carries \`payload.serviceWindow.closesAt\` (24 hours
  after it), and a conversation with a WhatsApp counterpart carries
  \`serviceWindow: {channel: "whatsapp", open, closesAt, lastInboundAt}\` (\`GET /api/v1/conversations/<id>\`,
  \`comms_get_conversation\`; \`null\` for a conversation with no WhatsApp message).
- List the approved templates: \`curl -s ${baseUrl}/api/v1/whatsapp/templates -H "Authorization: Bearer $CLIENT_TOKEN"\`
  → \`{provider, templates: [{contentSid, name, language, category, body, variables}], count}\`, asked of
  the provider each time (Twilio's Content API; \`body\` shows the placeholders \`{{1}}\`, \`{{2}}\`…).
- Send one with \`template\` instead of \`body\` (one of the two, never both), also outside the window:

\`\`\`sh
curl -s ${baseUrl}/api/v1/send-message -H "Authorization: Bearer $CLIENT_TOKEN" \\
  -H 'Content-Type: application/json' \\
  -d '{"channel":"whatsapp","to":"+14155550123","template":{"name":"appointment_reminder","language":"en","variables":{"1":"Ada","2":"Monday at 10:00"}}}'
\`\`\`

  Name it by \`contentSid\` (\`HX…\`) or by \`name\` (the approved template of that name, in \`language\`
  when given); \`variables\` fill its placeholders. The provider renders the text, and the stored message
  (the conversation's timeline) keeps it; until the provider answers it reads \`[template <name or contentSid>: 1=…]\`. A name with no approved template fails as
  \`PROVIDER_ERROR\` (502). Templates are for WhatsApp only (400 on other channels).

## Contacting people lawfully

Before any message or call leaves, Switchboard checks the person against the do-not-contact list, the
calling hours where they are, and the consent your agent needs. A refusal is 403 with one of these codes;
nothing reached a provider, no quota was used, and the operator sees it (\`/admin/api/refusals\`, metrics):

- \`RECIPIENT_OPTED_OUT\`: the person is on the do-not-contact list (\`details[0].source\`: they texted STOP
  (\`sms-stop\`) or wrote it on WhatsApp (\`whatsapp-opt-out\`), used an email's unsubscribe link
  (\`email-unsubscribe\`), you listed them with \`comms_do_not_contact\` (\`agent\`), or the operator did).
  Do not contact them again on any channel, calls included. A STOP ends when they send START (by text or
  on WhatsApp); other entries only when the operator removes them.
- \`EMAIL_SUPPRESSED\`: an email to this address bounced for good (the provider's hard bounce), or its reader
  marked one of your emails as spam; \`details[0].event\` names what happened and \`details[0].since\` when.
  Do not email the address again; the operator lifts it (the do-not-contact list) once it works again.
- \`OUTSIDE_CALLING_HOURS\`: a call outside the calling hours where
  the person is, when the operator enforces them. Try again from \`details[0].opensAt\` (also in the sentence).
- \`CONSENT_REQUIRED\`: your agent is configured to need a consent of \`details[0].kind\` before contacting
  anyone (a call: \`automated-call\`; a message: \`transactional\`) and
  none is on record for this person. Ask for it; once they give it, record it and retry.

Consent records (\`kind\`: \`transactional\`, \`marketing\` or \`automated-call\`; a consent is the person's on
every channel, \`channel\` only says how \`contact\` names them):

\`\`\`sh
curl -s ${baseUrl}/api/v1/consents -H "Authorization: Bearer $CLIENT_TOKEN" -H 'Content-Type: application/json' \\
  -d '{"contact":"+14155550123","channel":"sms","kind":"automated-call","source":"call","evidence":"said yes on call CA123","givenAt":"2026-01-15T10:00:00Z"}'
curl -s "${baseUrl}/api/v1/consents?contact=%2B14155550123" -H "Authorization: Bearer $CLIENT_TOKEN"
curl -s ${baseUrl}/api/v1/consents/revoke -H "Authorization: Bearer $CLIENT_TOKEN" -H 'Content-Type: application/json' \\
  -d '{"contact":"+14155550123","kind":"marketing"}'
\`\`\`

Over MCP: \`comms_record_consent\`, \`comms_check_consent\` (answers \`consented\` per kind, the kinds your agent
\`required\`, and every record, live and revoked) and \`comms_revoke_consent\` (no \`kind\`: every kind; it revokes the
operator's record too). When a person asks, on a call or in a message, not to be contacted again, put them on
your own list at once with \`comms_do_not_contact\` (\`POST /api/v1/do-not-contact\`
\`{"contact":"+14155550123","reason":"asked on the call"}\`): every later message or call of yours to them is
refused with \`RECIPIENT_OPTED_OUT\`.

## Receive messages

Inbound messages reach your agent in this order:

1. a live MCP session for the agent, if one is open (a session that cannot keep up is disconnected and
   the message moves on down this list);
2. else your callback URL — set it with
   \`curl -X PUT ${baseUrl}/api/v1/callback-url -H "Authorization: Bearer $CLIENT_TOKEN" -H 'Content-Type: application/json' -d '{"callbackUrl":"https://agent.example.com/hooks"}'\`;
   the answer holds \`signingSecret\`. The URL must reach your agent over the public internet: a
   loopback, private, link-local (cloud metadata), carrier-grade NAT, multicast or unspecified
   address is refused when you set it (400), and a name resolving to one is refused when a callback
   is posted, unless the operator allows private networks (\`CALLBACK_ALLOW_PRIVATE_NETWORKS\`, on in
   demo mode and development). Each callback is a POST of
   \`{"id","type":"message.inbound","agentId","createdAt","data":{"messageId","channel","from","to","subject?","body","html?","mediaUrls","externalId","receivedAt"}}\`
   signed per the Standard Webhooks scheme (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`),
   so any Standard Webhooks library verifies it:
   \`new Webhook(signingSecret).verify(rawBody, headers)\`. Answer 2xx; anything else, or a time-out,
   is retried on a schedule of about a day (by default at once, then after 5 s, 5 min, 30 min, 2 h,
   5 h, 10 h and 10 h; \`CALLBACK_RETRY_SCHEDULE\`). To refuse an event for good, answer 410 or any
   non-2xx with the header \`webhook-delivery: abort-message\`: it is not retried. Delivery is at least
   once: a message can arrive again (a retry after a lost answer, another node taking over, an
   operator's replay), always with the same event \`id\` and \`webhook-id\`, so drop one you already
   took. Delivery receipts for what you sent arrive as \`message.status\`; every message you send
   gets a final one (\`delivered\`, \`read\`, \`undelivered\`, \`failed\`) even when the provider never
   calls back (Switchboard asks it), or \`unknown\` with a \`reason\` at the bound
   (\`RECONCILE_BOUND_MS\`, a day by default). Every attempt is in the
   operator's delivery log (status, latency, the first 512 bytes of your answer). A callback URL that
   has failed without a success for five days is disabled (events go straight to dead letters) until
   the operator replays its events or you set a callback URL again.
3. else, or when every retry failed, the message waits as a dead letter:
   \`curl -s ${baseUrl}/api/v1/waiting-messages -H "Authorization: Bearer $CLIENT_TOKEN"\` returns them
   (oldest first, \`limit\` up to 500, optional \`channel\`) and acknowledges them in the same step:
   each is returned exactly once.

\`GET ${baseUrl}/api/v1/channel-status\` shows each channel's address, status and message count.

## The inbox

Whatever the live session and the callback did, every inbound message and every status change of a
message you sent (\`queued\`, \`sent\`, \`delivered\`, \`failed\`, \`undelivered\`, \`unknown\`) is also an entry in
your agent's inbox, stored before the provider got its answer. Entries carry a \`cursor\` that only
grows, the \`channel\`, the \`counterpart\` (sender or recipient), a \`conversationId\` (one per
counterpart address: SMS and WhatsApp from one number share it), the \`messageId\` and a \`payload\`
with the message's text or the receipt's details; a call adds \`call.status\` entries (its start and each
status change), a \`call.transcript\` when it ends, and a voicemail a \`voicemail\` entry (\`messageId\` is
null for these; the payload names the \`callSid\`). A notification is a hint; the inbox is the record.

- Read: \`curl -s "${baseUrl}/api/v1/inbox?limit=50" -H "Authorization: Bearer $CLIENT_TOKEN"\` returns
  \`{"entries":[…],"nextCursor","hasMore","ackedCursor","lastCursor"}\`. Without \`after\` it starts after
  your acknowledged cursor, so every entry you have not acknowledged comes back, after a crash or a
  reconnect too; \`after=<cursor>\` pages on (\`nextCursor\`). Reading changes nothing. Optional filters:
  \`channel\`, \`conversationId\`; \`limit\` 1–500.
- Acknowledge once handled:
  \`curl -s -X POST ${baseUrl}/api/v1/inbox/ack -H "Authorization: Bearer $CLIENT_TOKEN" -H 'Content-Type: application/json' -d '{"upTo":42}'\`.
  The acknowledged cursor never moves back; an \`upTo\` past the last entry is \`VALIDATION_FAILED\`.
  Acknowledged entries are kept for \`INBOX_RETENTION_DAYS\` (30 by default), then removed.
- Over MCP: \`comms_inbox_read\` and \`comms_inbox_ack\`, same arguments. A team token names the agent
  (\`agentId\`), as on every route.
- As an MCP resource: \`switchboard://agents/<agentId>/inbox\` (\`application/json\`). \`resources/read\`
  returns what \`GET /api/v1/inbox\` returns without arguments: the first 50 entries you have not
  acknowledged (page on with \`comms_inbox_read\` when \`hasMore\`); its \`ttlMs\` is 0, so clients do
  not cache it. \`resources/list\` shows a client token its agent's inbox (a team or orchestrator token,
  the agent named with \`?agentId=\`); \`resources/templates/list\` gives the URI template. An inbox the
  token may not read is "not found".

## Conversations

A conversation is your agent and one counterpart across channels: a phone number (SMS, WhatsApp and
voice share it), an email address, a LINE user. Every message and call belongs to one; its id is the
\`conversationId\` of the inbox entries.

- List: \`curl -s "${baseUrl}/api/v1/conversations" -H "Authorization: Bearer $CLIENT_TOKEN"\` —
  latest activity first, each with its counterparts per channel and its counts of messages and calls
  (\`limit\` 1–200, \`cursor\` = the \`nextCursor\` before).
- Timeline: \`GET ${baseUrl}/api/v1/conversations/<conversationId>\` — messages and calls newest first,
  across channels, each call with its transcript (\`limit\`, \`cursor\` to page back).
- Link a customer's addresses into one conversation (a customer who texts, then emails):
  \`curl -s -X POST ${baseUrl}/api/v1/link-contacts -H "Authorization: Bearer $CLIENT_TOKEN" -H 'Content-Type: application/json' -d '{"addresses":["+14155550123","ada@example.com"]}'\`.
  The first address's conversation takes the others, their history included; the linked address's
  own id still finds it (the answer names the conversation it joined).
- Reply in a conversation: \`send-message\` (\`comms_send_message\`) with \`conversationId\` instead of \`to\`
  goes to the counterpart on the channel the conversation last used, or on the \`channel\` you name
  (its address there: the last one used, else a number or address the conversation knows). An email
  reply takes the last email's subject ("Re: …") unless you give \`subject\`, and \`In-Reply-To\` /
  \`References\` headers naming the emails it answers, so it threads in the recipient's mail client.
- Over MCP: \`comms_list_conversations\`, \`comms_get_conversation\` (\`conversationId\` as an argument)
  and \`comms_link_contacts\`.
- A conversation with a WhatsApp counterpart says whether its 24-hour window is open
  (\`serviceWindow\`, see "WhatsApp: the 24-hour window and templates").

## Wait for a reply

After sending, wait for the counterpart's answer in the conversation (\`conversationId\` of any inbox
entry with them): the first entry after a cursor that is a message from them (any channel) or a
voicemail they left.

- REST, a long poll:
  \`curl -s "${baseUrl}/api/v1/conversations/<conversationId>/reply?wait=25" -H "Authorization: Bearer $CLIENT_TOKEN"\`
  answers \`{"agentId","conversationId","after","reply":<inbox entry>|null,"cursor","timedOut"}\` as soon
  as a reply is stored (within a second of its webhook, from any gateway), or after \`wait\` seconds
  (0–25, default 0: look once) with \`reply: null\`. Call again with \`after=<cursor>\` to go on
  waiting without missing anything. Without \`after\`, the wait starts after the later of your
  acknowledged cursor and your latest send in the conversation, so a reply that came between your send
  and your wait is answered at once. A conversation with no entry in your inbox (another agent's, or a
  wrong id) is 404; \`wait\` over 25 or a malformed id is \`VALIDATION_FAILED\`. A gateway that shuts down
  answers its waits at once (no reply, the cursor): call again. A principal has at most
  \`REPLY_WAITS_PER_PRINCIPAL\` (default 32) waits at once: long polls with \`wait\` over 0, MCP waits and
  reply tasks still waiting, all client tokens of an agent together; one more is 429 \`RATE_LIMITED\`
  with \`Retry-After\` (when the soonest of them ends), and the tool answers that error body with
  \`isError\`. Cancel a task you no longer need.
- MCP: \`comms_wait_for_reply\` \`{"conversationId","timeoutSeconds","after"?}\` (\`timeoutSeconds\` up to
  86400). A 2026-07-28 request that declares the Tasks extension gets a task (below) that completes
  with the reply, or with \`timedOut: true\` and the \`cursor\` at the deadline; \`tasks/cancel\` ends it.
  It is stored and read from the inbox at each \`tasks/get\`, so it survives restarts; poll every
  \`pollIntervalMs\` (1000). Any other client waits at most 25 s and gets the REST answer: call again
  with \`after\` set to its \`cursor\`.

## Listen for inbox updates

Instead of polling, an agent hears that its inbox has a new entry, then reads it:

- **MCP 2026-07-28**: \`subscriptions/listen\` with \`resourceSubscriptions\` naming the inbox opens a
  stream (one long POST answered as server-sent events) that carries
  \`notifications/resources/updated\` with the inbox's URI each time an entry is added — an inbound
  message, a status change of a message you sent — from whichever gateway or node stored it. With the
  SDK 2.x:
  \`client.setNotificationHandler('notifications/resources/updated', (n) => …read n.params.uri…)\`, then
  \`const sub = await client.listen({ resourceSubscriptions: ['switchboard://agents/support-bot/inbox'] })\`;
  \`sub.close()\` ends it. A listen naming an inbox the token may not read (another agent's, with a
  client token) or a URI that is no inbox is refused with -32602 before anything is streamed. Each
  open listen counts like a session against the token's limit on a gateway (64 by default): one more
  ends the oldest (\`sub.closed\` resolves \`'remote'\`; listen again). When the server shuts down it ends
  each listen with its final result (\`'graceful'\`): listen again, at another gateway.
- **MCP 2025 sessions**: \`resources/subscribe\` with the same URI;
  \`notifications/resources/updated\` comes on the session's stream (\`GET /mcp\`, or \`/sse\`), beside
  \`notifications/message\` with the message itself. \`resources/unsubscribe\` stops it.

An update is a hint, not the entry: a missed one (a dropped stream, a restarting node) only delays
you until your next read, so read the inbox when you (re)connect, and acknowledge what you handled.

## Voice

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
  \`tasks/get\` every \`pollIntervalMs\`.

## Provider webhooks

Point each provider at \`${baseUrl}/webhooks/<agentId>/<channel>\`: Twilio messaging webhooks at
\`…/sms\` and \`…/whatsapp\`, Resend at \`…/email\`, LINE at \`…/line\`. Every request is
signature-checked on its raw bytes with the vendor's own verifier; a bad signature is refused (403)
and nothing is stored. Postmark, which signs nothing, posts to \`…/email\` with the HTTP Basic
credentials written into that URL (\`https://user:password@…\`), checked the same way.
Provider retries are recognised by their ids and stored once.

## Deprovision

\`\`\`sh
curl -s ${baseUrl}/api/v1/deprovision -H "Authorization: Bearer $CLIENT_TOKEN" \\
  -H 'Content-Type: application/json' -d '{}'
\`\`\`

Every channel goes back to its pool and the agent's tokens stop working at once. Its content is deleted
with it: messages, calls with their transcripts and recordings, dead letters, conversations and contact
links, tasks, the inbox, the callback log and stored idempotent answers (usage records stay for billing;
they hold no content). An agent provisioned later under the same \`agentId\` starts empty, and no token
issued before (its static token, or an OAuth access token issued before it was provisioned) acts for it.

## Health

- \`GET ${baseUrl}/health\`: liveness.
- \`GET ${baseUrl}/health/ready\`: real probes of the database and each configured provider.
- \`GET ${baseUrl}/metrics\`: Prometheus metrics.

## Reference

The full API, generated from the schemas that validate requests: \`${baseUrl}/api/v1/openapi.json\`.
`;
}
