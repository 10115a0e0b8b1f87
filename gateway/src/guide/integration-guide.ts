import { MAX_JSON_DEPTH } from '../http/json-depth.js';
import { connectSections } from './connect-sections.js';
import { receivingSections } from './receiving-sections.js';
import { sendingSections } from './sending-sections.js';
import { voiceSections } from './voice-sections.js';

/**
 * The integration guide served at /api/v1/integration-guide, with this gateway's own URL filled in
 * so the examples run as they stand. Connecting, sending, receiving and voice are sections of their own.
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

${connectSections(baseUrl)}

${sendingSections(baseUrl)}

${receivingSections(baseUrl)}

${voiceSections(baseUrl)}

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
