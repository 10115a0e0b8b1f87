// Writes docs/configuration.md from the settings schema: `npx tsx --conditions=switchboard-source scripts/configuration-doc.ts`.
// A test checks the file is current, so the reference cannot drift from the code.
import { writeFileSync } from 'node:fs';
import { SettingsSchema, SECRET_SETTINGS } from '@switchboard/runtime';

export function configurationDoc(): string {
  const rows = Object.entries(SettingsSchema.properties as Record<string, { default?: unknown; description?: string; anyOf?: { const: string }[] }>).map(
    ([key, schema]) => {
      const allowed = schema.anyOf ? schema.anyOf.map((s) => `\`${s.const}\``).join(', ') : '';
      const def = schema.default === '' || schema.default === undefined ? '(empty)' : `\`${String(schema.default)}\``;
      return `| \`${key}\` | ${def} | ${schema.description ?? ''}${allowed ? ` One of ${allowed}.` : ''}${SECRET_SETTINGS.has(key) ? ' *Secret: never logged or shown.*' : ''} |`;
    },
  );
  // Settings matched by a pattern (per-driver DRIVER_<NAME>_<KEY>) get one row each, named by the pattern's shape.
  const patterns = Object.values((SettingsSchema as { patternProperties?: Record<string, { description?: string }> }).patternProperties ?? {}).map(
    (schema) => `| \`DRIVER_<NAME>_<KEY>\` | (empty) | ${schema.description ?? ''} |`,
  );
  rows.push(...patterns);
  return `# Configuration

Settings come from the environment and from a settings file of \`KEY=value\` lines (\`./.env\` when present;
\`--settings <file>\` names another, which must exist). [\`.env.example\`](../.env.example) lists every key with its default.
The environment wins over the file, and command-line flags (\`--port\`, \`--host\`, \`--data-dir\`) win over both.
Every value is checked against one schema at start-up; a bad value or an unknown key in the env file stops the start
with a message that names the key. This page is generated from that schema (\`scripts/configuration-doc.ts\`).

| key | default | meaning |
|---|---|---|
${rows.join('\n')}
${SAFEGUARDS}`;
}

/** What the start and the admin API's save refuse beyond each value's own shape. */
const SAFEGUARDS = `
## Refused values

- **Numbers are bounded.** Every numeric setting has a minimum and a maximum (the schema in
  \`runtime/src/settings/schema.ts\`); a value outside them, such as \`BODY_LIMIT_BYTES=1e15\`, stops the start
  and is refused by the admin API, with a message naming the bound.
- **\`ORCHESTRATOR_TOKEN\` must be a token.** It guards the whole admin API, so a set value needs at least 32
  characters and about 128 random bits: the alphabet its characters span, times its length, must reach 128 bits,
  and a value with few distinct characters or a repeated block (\`aaaa…\`, \`passwordpassword…\`) is refused.
  \`openssl rand -hex 32\` gives one; empty has one generated and printed at first start.

## Changing SECRET_KEY

\`SECRET_KEY\` (or \`DATA_DIR/secret.key\` when it is empty) seals the secrets the store keeps readable: the
team token and each agent's callback signing secret. A different key cannot open them, so:

- the admin API's save refuses a \`SECRET_KEY\` other than the key in force (writing the same key down is fine);
- a start whose key does not open the store stops with \`VALIDATION_FAILED\` naming \`SECRET_KEY\` (an admin deploy
  with such a key fails, and the previous settings serve again).

Switchboard has no re-sealing tool yet. To move to a new key, stop the server and start on an empty store
(a new \`DATA_DIR\` or database) with the new key; agents are provisioned again there and get new tokens and
signing secrets. To recover from a changed key, set the old one back.

## Routing and failover

A message channel may have several providers. \`SMS_DRIVER=twilio,telnyx\` routes SMS to both loaded drivers: the
first is the channel's own (each agent's number from \`POOL_PHONE_NUMBERS\` is held there), the others are where a
send goes when one before it provably did not take it. \`SMS_ROUTES\` changes the order per destination by E.164 prefix
(\`+44=telnyx,twilio\`: UK numbers go to Telnyx first); the longest matching prefix wins, and its list is the whole
list for those destinations (a provider it leaves out is not tried for them). Each provider's settings, webhook URLs
and capabilities are in [providers/README.md](providers/README.md).

The admin UI's Providers page (\`/admin/providers\`, \`PUT /admin/api/providers/routing\`) reorders each channel's
providers and edits the SMS prefix routes: they are saved to the env file as these settings and, like every saved
setting, serve after the next deploy. In a cluster that writes the env file of the gateway that served the page;
runtime nodes, which route the sends, read their own settings and need the same values and a restart.

- **Senders.** A send that fails over goes from the agent's sender at that provider. Pool entries written
  \`telnyx:+15555550200\` (in \`POOL_PHONE_NUMBERS\`, or added with \`POST /admin/api/pools/phone\`) are
  numbers held at Telnyx; provisioning gives each agent one of them beside its own number while any are
  free. An agent with none there cannot fail over to it: the send fails with a reason naming the provider.
  WhatsApp senders at the Cloud API are written \`whatsapp-cloud:+1…\` in \`POOL_WHATSAPP_SENDERS\` (the business number
  of the configured phone number id). Meta's 24-hour window is per business number: a free-form message failed over
  to a number the customer never wrote to is taken and then fails (131047).
  An email address is the agent's at every email provider (each sends for the domain), so email fails over
  from the same address.
- **When a send fails over.** Only when the provider provably did not take the message: the connection was
  refused (or the name did not resolve, or TLS failed before the request), the provider answered with an
  error (a 5xx, 429, 401/403, or a 4xx about the message), or its circuit is open. Never on an ambiguous
  outcome: a time-out or a connection lost after the request went out may have been accepted, so the send
  stays with that provider. Before it is tried there again, the provider's own records are asked for it
  (Twilio's message list: same addresses and body, since the send was stored), and a message found there is
  adopted rather than sent again; nothing is sent at two providers. A driver without that lookup (Twilio's and
  Postmark's have one) is tried again as it is: Resend and LINE drop the repeat by its idempotency key, while at Telnyx and the
  WhatsApp Cloud API, which take none, a send whose answer was lost may arrive twice.
- **Circuits.** Each process keeps a circuit per provider (cockatiel's circuit breaker). After
  \`PROVIDER_CIRCUIT_FAILURES\` consecutive sends the provider failed for its own reasons (refused
  connections, 5xx, 429) it opens and sends skip it; after \`PROVIDER_CIRCUIT_HALF_OPEN_MS\` one send probes it,
  and a success closes it. A 4xx about one message (an invalid number) fails that send over but does not count.
  In a cluster each runtime node learns from its own sends.
- **What records it.** The send's answer, the message's \`message.status\` inbox entries and callbacks carry
  \`provider\`; an inbound message or receipt is checked against each of the channel's providers' signatures at
  the same webhook URL, and the one that signed it is recorded. Metrics:
  \`switchboard_provider_send_attempts_total{channel,provider,outcome}\` (accepted, refused, ambiguous),
  \`switchboard_provider_failovers_total{channel,from,to}\` and \`switchboard_provider_circuit_state{provider}\`
  (0 closed, 1 half-open, 2 open).
- **Text-to-speech.** \`TTS_DRIVER=elevenlabs,openai\`: a stream call's turn whose speech fails at the first
  provider (an error, or no audio within \`TTS_FAILOVER_TIMEOUT_MS\`) is spoken by the next, in that provider's
  own default voice, rather than left silent; the next turn asks the first again. After
  \`PROVIDER_CIRCUIT_FAILURES\` consecutive turns it failed or kept waiting, its circuit opens and turns go to the
  next at once, without waiting, until one turn probes it after \`PROVIDER_CIRCUIT_HALF_OPEN_MS\`. Counted as
  \`switchboard_provider_failovers_total{channel="tts",from,to}\` and \`switchboard_provider_circuit_state{provider}\`.

## Traces (OpenTelemetry)

Traces are off unless the standard OpenTelemetry variables ask for them; these are read from the process
environment by every process (embedded, cluster gateway, runtime node), are not Switchboard settings, and do not
go in the settings file. Unset, no tracing SDK is loaded and no span is made.

| variable | meaning |
|---|---|
| \`OTEL_TRACES_EXPORTER\` | \`otlp\` turns traces on (\`console\` prints them; \`none\` keeps them off whatever else is set). Unset: on when an endpoint below is set. |
| \`OTEL_EXPORTER_OTLP_ENDPOINT\` | The collector's base URL (OTLP over HTTP, JSON); spans go to \`<url>/v1/traces\`. Default \`http://localhost:4318\`. |
| \`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT\` | The full URL for spans, instead of the above. |
| \`OTEL_EXPORTER_OTLP_HEADERS\` | Headers for the collector (\`key=value,…\`), for example its API key. |
| \`OTEL_SERVICE_NAME\` | \`service.name\` of the spans; \`switchboard\` by default. \`OTEL_RESOURCE_ATTRIBUTES\` adds more. |
| \`OTEL_TRACES_SAMPLER\`, \`OTEL_TRACES_SAMPLER_ARG\` | Sampling, e.g. \`parentbased_traceidratio\` and \`0.1\`; by default every trace (\`parentbased_always_on\`), so an agent's sampled \`traceparent\` is kept. |
| \`OTEL_BSP_SCHEDULE_DELAY\`, \`OTEL_BSP_MAX_QUEUE_SIZE\` | How often the batch of spans is exported (ms) and how many wait at most. |
| \`OTEL_SDK_DISABLED\` | \`true\` turns traces off. |

A trace covers: each REST, MCP and provider-webhook request at the gateway (an agent's \`traceparent\` header is
its parent), the agent operation on the node holding the agent (across NATS, the trace context travels in the
message headers), each store commit, each provider call, and each signed callback post, which carries a
\`traceparent\` header of its own span. A message's status callback continues the trace of the message's send
(linked to the provider's receipt that brought it) when the same process made the send.
`;

if (process.argv[1]?.endsWith('configuration-doc.ts')) {
  writeFileSync(new URL('../docs/configuration.md', import.meta.url), configurationDoc());
  console.log('wrote docs/configuration.md');
}
