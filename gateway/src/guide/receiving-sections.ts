/** The integration guide's sections on receiving: callbacks, the inbox, conversations, waiting for a reply and listening for inbox updates. */
export function receivingSections(baseUrl: string): string {
  return `## Receive messages

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
you until your next read, so read the inbox when you (re)connect, and acknowledge what you handled.`;
}
