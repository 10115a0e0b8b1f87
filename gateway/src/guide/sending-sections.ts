/** The integration guide's sections on provisioning and sending: a message, WhatsApp's window and templates, and contacting people lawfully. */
export function sendingSections(baseUrl: string): string {
  return `## Provision an agent

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
refused with \`RECIPIENT_OPTED_OUT\`.`;
}
