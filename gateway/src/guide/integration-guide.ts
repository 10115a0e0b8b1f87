/**
 * The integration guide served at /api/v1/integration-guide, with this gateway's own URL filled in
 * so the examples run as they stand.
 */
export function integrationGuide(baseUrl: string): string {
  return `# Switchboard integration guide

Switchboard gives your agent real communication channels. This guide shows how to connect.
Every example uses this gateway's address, \`${baseUrl}\`.

## Tokens

| token | where you get it | what it may do |
|---|---|---|
| orchestrator | printed once at first start (or \`ORCHESTRATOR_TOKEN\`) | everything, including \`/admin/api/*\` |
| team | \`GET /admin/api/my-token\` with the orchestrator token | all of \`/api/v1/*\` for any agent |
| client | returned once by provisioning as \`securityToken\` | \`/api/v1/*\` for its own agent only |

Send it as \`Authorization: Bearer <token>\`. Errors always look like
\`{"error": "<sentence>", "code": "<STABLE_CODE>"}\`; match on \`code\`.

## Provision an agent

\`\`\`sh
curl -s ${baseUrl}/api/v1/provision \\
  -H "Authorization: Bearer $TEAM_TOKEN" -H 'Content-Type: application/json' \\
  -d '{"agentId":"support-bot","displayName":"Support bot","channels":["sms","email"]}'
\`\`\`

The answer holds the agent's addresses and its \`securityToken\`, shown once: keep it.
If a pool is empty the answer is 409 \`POOL_EXHAUSTED\` and nothing is taken.
Send \`Idempotency-Key: <unique>\` on any POST or PUT to make a retry safe.

## Deprovision

\`\`\`sh
curl -s ${baseUrl}/api/v1/deprovision -H "Authorization: Bearer $CLIENT_TOKEN" \\
  -H 'Content-Type: application/json' -d '{}'
\`\`\`

Every channel goes back to its pool and the agent's tokens stop working at once.

## Health

- \`GET ${baseUrl}/health\`: liveness.
- \`GET ${baseUrl}/health/ready\`: real probes of the database and each configured provider.
- \`GET ${baseUrl}/metrics\`: Prometheus metrics.

## Reference

The full API, generated from the schemas that validate requests: \`${baseUrl}/api/v1/openapi.json\`.
`;
}
