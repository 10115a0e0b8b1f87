/** The integration guide's sections on connecting: MCP in both protocol eras, its clients, and OAuth 2.1 access tokens. */
export function connectSections(baseUrl: string): string {
  return `## Connect over MCP

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

and connect to \`${baseUrl}/mcp\` with \`Authorization: Bearer $TOKEN\` as above.`;
}
