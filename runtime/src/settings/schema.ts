import { Type, type Static } from '@sinclair/typebox';
import { RETRY_SCHEDULE_PATTERN } from './retry-schedule.js';

const csv = (description: string) => Type.String({ default: '', description });
const secret = (description: string) => Type.String({ default: '', description, secret: true });

/** Per-driver settings: `DRIVER_<NAME>_<KEY>`, checked against the driver's own schema when it loads. */
export const DRIVER_SETTING_PATTERN = '^DRIVER_[A-Z0-9]+(_[A-Z0-9]+)+$';

/** `SMS_DRIVER`, `TTS_DRIVER`...: which driver serves a capability when several loaded drivers offer it. */
function driverChoices() {
  const choice = (capability: string, name: string, several: string) =>
    Type.String({
      default: '',
      pattern: '^$|^\\S+$',
      description: `The driver that serves ${capability} when several loaded drivers offer it: a package name, or a driver's settings name (\`${name}\`). ${several} Unset with two candidates, the start stops with DRIVER_CONFLICT.`,
    });
  const messages = (order: string) =>
    `Several may be named in order of preference (\`${order}\`): sends go to the first and fail over to the next when one provably did not take a message (docs/configuration.md, "Routing and failover").`;
  const one = 'One driver only: a list is refused at start (DRIVER_CONFLICT).';
  return {
    SMS_DRIVER: choice('sms', 'twilio', messages('twilio,telnyx')),
    WHATSAPP_DRIVER: choice('whatsapp', 'twilio', messages('twilio,whatsapp-cloud')),
    EMAIL_DRIVER: choice('email', 'resend', messages('resend,postmark')),
    LINE_DRIVER: choice('the line (chat) channel', 'line', messages('line,<another driver>')),
    VOICE_DRIVER: choice('voice calls', 'twilio', one),
    TTS_DRIVER: choice(
      'text-to-speech (tts)',
      'elevenlabs',
      'Several may be named in order of preference (`elevenlabs,openai`): a call turn whose speech fails at one, or takes longer than TTS_FAILOVER_TIMEOUT_MS, is spoken by the next.',
    ),
    STT_DRIVER: choice('speech-to-text (stt)', 'deepgram', one),
  };
}

/**
 * Every setting Switchboard reads, by its environment name. One schema validates the environment
 * and the env file at start-up, feeds the admin API's save route, and documents the keys.
 */
export const SettingsSchema = Type.Object(
  {
    NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], {
      default: 'development',
      description: 'Environment reported by /health; production tightens callback URL rules.',
    }),
    HOST: Type.String({ default: '127.0.0.1', minLength: 1, description: 'Interface the gateway listens on.' }),
    PORT: Type.Integer({ default: 3000, minimum: 0, maximum: 65535, description: 'TCP port; 0 picks a free one.' }),
    PUBLIC_BASE_URL: Type.String({
      default: '',
      pattern: '^$|^https?://[^\\s/]+(/[^\\s]*)?$',
      description: 'URL providers and phones reach this gateway at; defaults to http://HOST:PORT.',
    }),
    ALLOWED_HOSTS: Type.String({
      default: '',
      pattern: '^$|^[A-Za-z0-9.:\\[\\]-]+(\\s*,\\s*[A-Za-z0-9.:\\[\\]-]+)*$',
      description:
        'Further host names the MCP routes (/sse, /messages, /mcp) accept in Host and Origin, comma-separated (DNS-rebinding protection); the public base URL\'s host, HOST and loopback are always accepted.',
    }),
    MCP_MAX_SESSIONS_PER_PRINCIPAL: Type.Integer({
      default: 64,
      minimum: 1,
      maximum: 100_000,
      description:
        'MCP sessions (each /sse stream, each Streamable HTTP session) one token may hold on one gateway; one more closes that token\'s longest idle session, whose client then gets 404 and initializes again. A client token counts for its agent.',
    }),
    REPLY_WAITS_PER_PRINCIPAL: Type.Integer({
      default: 32,
      minimum: 0,
      maximum: 100_000,
      description:
        'Waits for a reply one principal may have at once (0: no cap): REST long polls and MCP waits held on this gateway, and reply tasks still waiting (counted from the store). One more is answered 429 RATE_LIMITED with Retry-After (a tool: an error result with that body). Client tokens of one agent count together; a team or orchestrator token counts per agent it acts for. Held waits are counted per gateway.',
    }),
    MCP_SESSION_IDLE_SECONDS: Type.Integer({
      default: 300,
      minimum: 1,
      maximum: 86_400,
      description:
        'An MCP session with no request for this long is closed, unless it is a connected listener (initialized, its event stream open) or a request is in flight.',
    }),
    DATA_DIR: Type.String({ default: './data', minLength: 1, description: 'Folder for the SQLite store, keys and audio files.' }),
    DATABASE_URL: Type.String({
      default: '',
      pattern: '^$|^postgres(ql)?://\\S+$',
      secret: true,
      description:
        'postgres://user:password@host:port/database: the shared PostgreSQL store (cluster mode). Empty: SQLite under DATA_DIR (embedded mode). TLS as in libpq: `?sslmode=verify-full` checks the server\'s certificate and host name, `&sslrootcert=/path/ca.pem` names a private CA (read at each new connection).',
    }),
    NATS_URL: Type.String({
      default: '',
      pattern: '^$|^(nats|tls)://\\S+(\\s*,\\s*(nats|tls)://\\S+)*$',
      secret: true,
      description:
        'nats://host:4222 (comma-separated for several servers): the NATS server with JetStream that joins a cluster; `tls://` requires TLS. Read by `switchboard gateway` and `switchboard runtime`; `switchboard start` (embedded) ignores it. Credentials in the URL (`nats://user:password@host`) work but prefer NATS_USER/NATS_PASSWORD; logs print the URL without them.',
    }),
    NATS_REPLICAS: Type.Integer({
      default: 1,
      minimum: 1,
      maximum: 5,
      description:
        'Copies JetStream keeps of each stream and KV bucket Switchboard creates (work, leases, calls): 3 on a 3-node NATS cluster, so that losing one server loses nothing. Applies when they are created; an existing stream keeps its own (change it with `nats stream edit`).',
    }),
    NATS_USER: Type.String({ default: '', description: 'NATS user name (with NATS_PASSWORD). One way to authenticate: a user and password, NATS_TOKEN, NATS_NKEY_SEED_FILE or NATS_CREDS_FILE.' }),
    NATS_PASSWORD: secret('Password of NATS_USER.'),
    NATS_TOKEN: secret('NATS authentication token (instead of a user and password).'),
    NATS_SYSTEM_USER: Type.String({
      default: '',
      description:
        "Runtime nodes, optional: a user of NATS's system account (with NATS_SYSTEM_PASSWORD) through which a node hears the server's disconnect advisories, so that a crashed node's partitions are taken at once instead of at lease expiry. Empty: failover waits for the lease TTL.",
    }),
    NATS_SYSTEM_PASSWORD: secret('Password of NATS_SYSTEM_USER.'),
    NATS_NKEY_SEED_FILE: Type.String({ default: '', description: 'File holding the NKey seed (`SU…`) this process authenticates with; read at each connect.' }),
    NATS_CREDS_FILE: Type.String({ default: '', description: 'NATS credentials file (user JWT and NKey seed, as `nsc` writes it) for operator/JWT deployments; read at each connect.' }),
    NATS_TLS_CA_FILE: Type.String({ default: '', description: 'PEM file of the CA that signed the NATS servers\' certificates. Setting any NATS_TLS_* requires TLS.' }),
    NATS_TLS_CERT_FILE: Type.String({ default: '', description: 'PEM client certificate, for servers that verify clients (`verify: true`); with NATS_TLS_KEY_FILE.' }),
    NATS_TLS_KEY_FILE: Type.String({ default: '', description: 'PEM private key of NATS_TLS_CERT_FILE.' }),
    NODE_ID: Type.String({
      default: '',
      pattern: '^$|^[A-Za-z0-9_-]{1,64}$',
      description: 'Name of this cluster process in logs and partition leases; unique per process. Empty: host name, pid and a random suffix.',
    }),
    CLUSTER_PARTITIONS: Type.Integer({
      default: 32,
      minimum: 1,
      maximum: 4096,
      description: 'Partitions agents are spread over in a cluster; every gateway and runtime node of one cluster must use the same number.',
    }),
    CLUSTER_LEASE_TTL_MS: Type.Integer({
      default: 3000,
      minimum: 500,
      maximum: 60_000,
      description: 'How long a runtime node holds a partition without renewing it: a dead node\'s agents are served again by others about this long after it died.',
    }),
    HEALTH_PORT: Type.Integer({
      default: 0,
      minimum: 0,
      maximum: 65535,
      description: 'Runtime nodes (`switchboard runtime`) only: TCP port, on HOST, of their liveness and readiness probes (GET /health, GET /health/ready) and Prometheus metrics (GET /metrics); 0: none. Gateways answer all three on PORT.',
    }),
    LOG_LEVEL: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
      { default: 'info', description: 'pino log level.' },
    ),
    LOG_FORMAT: Type.Union([Type.Literal('auto'), Type.Literal('json'), Type.Literal('pretty')], {
      default: 'auto',
      description: 'auto: readable lines when stdout is a terminal (unless NODE_ENV=production), JSON lines otherwise; json or pretty force one.',
    }),
    DEMO_MODE: Type.Union([Type.Literal('auto'), Type.Literal('true'), Type.Literal('false')], {
      default: 'auto',
      description: 'auto: demo mode when no provider credentials and no DRIVERS are set; true/false force it.',
    }),
    SIMULATOR_PORT: Type.Integer({
      default: 4010,
      minimum: 0,
      maximum: 65535,
      description:
        'Demo mode: TCP port, on 127.0.0.1, of the in-process provider simulator, the same at every start so its URL stays good. When it is taken the simulator takes a free port, and the start-up log and the banner say so; 0 always picks a free one.',
    }),
    ORCHESTRATOR_TOKEN: secret(
      'Orchestrator token; generated, stored and printed once at first start when empty. When set: at least 32 characters and about 128 random bits (`openssl rand -hex 32`); a short or patterned value stops the start.',
    ),
    SECRET_KEY: Type.String({
      default: '',
      pattern: '^$|^[0-9a-fA-F]{64}$|^[A-Za-z0-9+/_-]{43}=?$',
      secret: true,
      description:
        '32-byte key (base64 or hex) that encrypts secrets at rest; generated under DATA_DIR when empty. Changing it on an existing store is refused (see "Changing SECRET_KEY" below).',
    }),
    BODY_LIMIT_BYTES: Type.Integer({ default: 1_048_576, minimum: 1024, maximum: 67_108_864, description: 'Largest API request body.' }),
    WEBHOOK_BODY_LIMIT_BYTES: Type.Integer({ default: 5_242_880, minimum: 1024, maximum: 67_108_864, description: 'Largest webhook body.' }),
    AUTH_LOCKOUT_ATTEMPTS: Type.Integer({ default: 10, minimum: 1, maximum: 1000, description: 'Failed authentications from one address before it is locked out.' }),
    AUTH_LOCKOUT_WINDOW_SECONDS: Type.Integer({ default: 300, minimum: 1, maximum: 86_400, description: 'Window in which failures are counted.' }),
    AUTH_LOCKOUT_SECONDS: Type.Integer({ default: 900, minimum: 1, maximum: 86_400, description: "How long a locked-out address's wrong tokens are refused with 429; a correct token always passes." }),
    OAUTH_AUTHORIZATION_SERVERS: Type.String({
      default: '',
      pattern: '^$|^https?://[^\\s,]+(\\s*,\\s*https?://[^\\s,]+)*$',
      description:
        'Issuer URLs of the OAuth 2.1 authorization servers whose JWT access tokens /api/v1 and /mcp accept beside the static tokens, comma-separated; each is named in /.well-known/oauth-protected-resource and its keys are found through its metadata (jwks_uri). Empty turns OAuth off.',
    }),
    OAUTH_RESOURCE: Type.String({
      default: '',
      pattern: '^$|^https?://[^\\s/?#]+/?$',
      description:
        "This server's resource URI (RFC 8707), an origin such as https://gateway.example.com; the MCP endpoint's is the same with /mcp. Defaults to the public base URL's origin.",
    }),
    OAUTH_AUDIENCE: Type.String({
      default: '',
      pattern: '^$|^[^\\s,]+(\\s*,\\s*[^\\s,]+)*$',
      description: 'Audiences an access token may carry, comma-separated; one must match. Defaults to the resource URI and the resource URI with /mcp.',
    }),
    OAUTH_AGENT_CLAIM: Type.String({
      default: 'switchboard_agent',
      pattern: '^[A-Za-z0-9_.:/-]{1,128}$',
      description: 'The access-token claim that names the agent the token acts for (e.g. switchboard_agent, or sub).',
    }),
    OAUTH_CLOCK_SKEW_SECONDS: Type.Integer({
      default: 60,
      minimum: 0,
      maximum: 600,
      description: "Tolerance for the clocks of the authorization server and this server when checking an access token's exp, nbf and iat.",
    }),
    TRUSTED_PROXIES: Type.String({
      default: '',
      maxLength: 4096,
      description:
        "Comma-separated IPs or CIDRs of the proxies and load balancers in front of the gateway (or loopback, linklocal, uniquelocal): their X-Forwarded-For names the client. Empty trusts none: the socket's peer is the client.",
    }),
    SQLITE_SYNCHRONOUS: Type.Union([Type.Literal('FULL'), Type.Literal('NORMAL')], {
      default: 'FULL',
      description: 'FULL survives power loss; NORMAL survives process crashes only.',
    }),
    ACTOR_IDLE_SECONDS: Type.Integer({ default: 300, minimum: 1, maximum: 86_400, description: 'Idle time after which an agent actor is passivated.' }),
    SHUTDOWN_GRACE_SECONDS: Type.Integer({ default: 10, minimum: 0, maximum: 600, description: 'How long shutdown waits for in-flight requests.' }),
    HTTP_ADAPTER: Type.Union([Type.Literal('auto'), Type.Literal('uws'), Type.Literal('node')], {
      default: 'auto',
      description:
        'HTTP server under the gateway. auto: uWebSockets.js when its native build loads and answers a probe request on this Node and libc, else node:http with ws; uws or node force one.',
    }),
    HTTP_HEADERS_TIMEOUT_MS: Type.Integer({
      default: 10_000,
      minimum: 100,
      maximum: 600_000,
      description:
        'How long a client may take to send a request head, from the connection opening (or the previous answer) on; it is then disconnected (node:http answers 408 first). uWS fixes this at 10 s whatever the setting.',
    }),
    HTTP_REQUEST_TIMEOUT_MS: Type.Integer({
      default: 30_000,
      minimum: 100,
      maximum: 3_600_000,
      description:
        'How long a client may take to send a whole request, head and body; it is then answered 408 and disconnected (uWS also cuts a body that arrives slower than 16 KB/s for 10 s). Answers are not counted: SSE and MCP streams and WebSockets last as long as they are used.',
    }),
    HTTP_IDLE_TIMEOUT_MS: Type.Integer({
      default: 10_000,
      minimum: 100,
      maximum: 600_000,
      description:
        'A keep-alive connection with no request in progress is closed after this long (node:http adds about 1 s). An open stream is not idle. uWS fixes this at 10 s whatever the setting.',
    }),
    HTTP_MAX_CONNECTIONS_PER_ADDRESS: Type.Integer({
      default: 1000,
      minimum: 0,
      maximum: 1_000_000,
      description:
        'Connections one peer address may hold open at once (0: no cap); past it a connection is answered 429 RATE_LIMITED and closed. Counted by the socket\'s peer, so behind a reverse proxy every client shares the proxy\'s address: raise it or set 0. On uWS the open requests, streams and WebSockets are counted.',
    }),
    CALLBACK_RETRY_SCHEDULE: Type.String({
      default: '0,5s,5m,30m,2h,5h,10h,10h',
      pattern: RETRY_SCHEDULE_PATTERN,
      description:
        'When an event is posted to a callback URL: the wait before each attempt, comma-separated (a bare number is ms; s, m, h; each at most a day), so the count is the number of attempts. The default is eight attempts over about 28 hours. After the last, an inbound message becomes a dead letter (callback_failed). A 410 or a `webhook-delivery: abort-message` answer ends the attempts at once.',
    }),
    CALLBACK_DISABLE_AFTER_MS: Type.Integer({
      default: 432_000_000,
      minimum: 1,
      maximum: 2_592_000_000,
      description:
        'A callback URL whose attempts have failed without a success for this long (default five days) is disabled: events go to dead letters without a post, and the dashboard shows an alert. Replaying from the admin API, or a new callback URL, enables it again.',
    }),
    CALLBACK_LOG_RETENTION_DAYS: Type.Integer({
      default: 30,
      minimum: 0,
      maximum: 3650,
      description: 'How long the callback delivery log (one row per attempt) and the events it posted are kept for replay (0: removed at the next hourly sweep). Events still being retried are never removed.',
    }),
    CALLBACK_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100, maximum: 120_000, description: 'How long one callback attempt may take.' }),
    CALLBACK_ALLOW_PRIVATE_NETWORKS: Type.Union([Type.Literal('auto'), Type.Literal('true'), Type.Literal('false')], {
      default: 'auto',
      description:
        'Whether the URLs agents give the server to call (callback URL, which also answers call turns) may point at loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local (169.254/16, where cloud metadata answers), carrier-grade NAT (100.64/10), multicast, unspecified or reserved addresses. false: refused when saved (400) and again at each connection, by the address the name resolves to then (so DNS rebinding does not get through). auto: allowed in demo mode and outside production (NODE_ENV development or test), refused in production. true: allowed, for deployments whose agents live on a private network.',
    }),
    SMS_ROUTES: Type.String({
      default: '',
      pattern: '^$|^\\+[0-9]{1,6}=[a-z0-9@/,_-]+(;\\s*\\+[0-9]{1,6}=[a-z0-9@/,_-]+)*$',
      description:
        'SMS providers in order per destination, by E.164 prefix: `+44=telnyx,twilio;+1=twilio,telnyx`. The longest matching prefix wins; a destination no prefix matches follows SMS_DRIVER. Each name is one of the drivers SMS_DRIVER lists.',
    }),
    PROVIDER_CIRCUIT_FAILURES: Type.Integer({ default: 5, minimum: 1, maximum: 1000, description: 'Consecutive sends a provider failed for its own reasons (refused connections, 5xx or 429 answers) before its circuit opens and sends skip it for PROVIDER_CIRCUIT_HALF_OPEN_MS. With several TTS_DRIVER providers, consecutive call turns whose speech failed or timed out (TTS_FAILOVER_TIMEOUT_MS) open a TTS provider\'s circuit the same way.' }),
    PROVIDER_CIRCUIT_HALF_OPEN_MS: Type.Integer({ default: 30_000, minimum: 100, maximum: 3_600_000, description: 'How long an open provider circuit stays open before one send (or call turn, for a TTS provider) probes the provider again (half-open); a success closes it.' }),
    SEND_MAX_ATTEMPTS: Type.Integer({ default: 3, minimum: 1, maximum: 10, description: 'Attempts at a provider send when the provider says a retry can help.' }),
    SEND_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100, maximum: 120_000, description: 'How long one provider send may take before it counts as failed (and is retried).' }),
    SEND_RETRY_BASE_MS: Type.Integer({ default: 250, minimum: 1, maximum: 60_000, description: 'Delay before the first send retry; each next one doubles.' }),
    INBOX_RETENTION_DAYS: Type.Integer({
      default: 30,
      minimum: 0,
      maximum: 3650,
      description:
        "How long an acknowledged inbox entry is kept (0: removed at the next hourly sweep). Entries not yet acknowledged are never removed.",
    }),
    MESSAGE_RETENTION_DAYS: Type.Integer({
      default: 0,
      minimum: 0,
      maximum: 3650,
      description:
        'How long messages (their text, with the inbox entries, callback events and dead letters that name them) are kept; 0 (the default): for ever. Swept hourly, a batch at a time; a message still waiting for delivery or for its agent to acknowledge it is kept. Usage records (counts and costs) stay.',
    }),
    TRANSCRIPT_RETENTION_DAYS: Type.Integer({
      default: 0,
      minimum: 0,
      maximum: 3650,
      description: "How long call transcripts are kept; 0 (the default): for ever. Swept hourly; the call's record (times, duration, cost, latency ledger) stays. Recordings have RECORDING_RETENTION_DAYS.",
    }),
    RECONCILE_AFTER_MS: Type.Integer({
      default: 900_000,
      minimum: 100,
      maximum: 86_400_000,
      description:
        "An outbound message with no final status (delivered, read, undelivered, failed) this long after its send is asked about at its provider (the driver's fetchStatus); the asks then space out, each twice as long after the send as the last, until RECONCILE_BOUND_MS.",
    }),
    RECONCILE_BOUND_MS: Type.Integer({
      default: 86_400_000,
      minimum: 100,
      maximum: 2_592_000_000,
      description:
        "The bound on an outbound message's final status: one without it this long after its send is asked about a last time and otherwise recorded `unknown`, with the reason, in the agent's inbox and at its callback URL. A receipt that comes later still applies.",
    }),
    RECONCILE_SWEEP_MS: Type.Integer({
      default: 60_000,
      minimum: 50,
      maximum: 3_600_000,
      description: 'How often each process holding agents looks for outbound messages due to be asked about (RECONCILE_AFTER_MS) or past their bound.',
    }),
    CALLING_HOURS: Type.Union([Type.Literal('off'), Type.Literal('enforce')], {
      default: 'off',
      description:
        "enforce: calls (and texts an agent marks as marketing) are refused outside the recipient's calling hours, in the recipient's time zone (OUTSIDE_CALLING_HOURS, with when they open); off: not checked. The do-not-contact list is always enforced.",
    }),
    VOICE_MODE: Type.Union([Type.Literal('relay'), Type.Literal('stream')], {
      default: 'relay',
      description: 'How calls attach by default: relay (ConversationRelay: the provider does speech) or stream (Media Streams: Switchboard does).',
    }),
    VOICE_TURN_TIMEOUT_MS: Type.Integer({ default: 8000, minimum: 100, maximum: 120_000, description: 'How long the agent may take to answer one turn of a call.' }),
    VOICE_MAX_CALL_SECONDS: Type.Integer({ default: 600, minimum: 10, maximum: 14_400, description: 'Calls are ended politely after this long.' }),
    TTS_FAILOVER_TIMEOUT_MS: Type.Integer({
      default: 5000,
      minimum: 100,
      maximum: 60_000,
      description: "With several TTS_DRIVER providers (`elevenlabs,openai`): how long one may take to synthesise a call turn's speech before the turn is spoken by the next. A lone provider keeps its driver's own time-out.",
    }),
    RECORDINGS_DIR: Type.String({
      default: '',
      description:
        'Folder for call recordings (WAV, both legs). Empty: DATA_DIR/recordings. In a cluster, a folder every gateway and runtime node shares (a network volume): the gateway holding a stream-mode call writes its recording, a node stores a relay call\'s provider recording, and any gateway serves them.',
    }),
    RECORDING_RETENTION_DAYS: Type.Integer({
      default: 30,
      minimum: 0,
      maximum: 3650,
      description: 'How long call recordings are kept (0: removed at the next hourly sweep). Recording is off unless an agent (recordCalls) or a call (record) asks for it.',
    }),
    RECORDING_ANNOUNCEMENTS: Type.String({
      default: '',
      description:
        "How a recorded call tells the other party it is recorded, where their place asks every party's consent (France, Germany, Australia, California and the other US all-party states): `<language>=<text>` entries separated by `|`, replacing or adding to the built-in en, fr, de and es wording (`en=This call is recorded for quality.|it=La chiamata è registrata.`). The call's language picks one, else its base language, else English.",
    }),
    TARIFFS: Type.String({
      default:
        'sms=0.0083,whatsapp=0.005,email=0.0004,line=0,call_minute=0.014,voice_message=0.014,transfer=0.01,tts_1k_characters=0.18,' +
        'sms:CA=0.0083,sms:GB=0.0463,sms:DE=0.0887,sms:FR=0.0798,sms:JP=0.0769,sms:AU=0.0515,sms:IN=0.0832',
      pattern: '^$|^[a-z0-9_]+(:[A-Z]{2})?=\\d+(\\.\\d+)?(,[a-z0-9_]+(:[A-Z]{2})?=\\d+(\\.\\d+)?)*$',
      description:
        'USD per unit, `<action>[:<COUNTRY>]=<usd>` comma-separated; used when the provider reports no price. Defaults are approximate US list prices; set your own.',
    }),
    MARKUP_PERCENT: Type.Number({ default: 0, minimum: 0, maximum: 1000, description: 'Markup on provider cost for billing, global default (the admin API overrides it, and per agent).' }),
    LIMIT_ACTIONS_PER_MINUTE: Type.Integer({ default: 120, minimum: 0, maximum: 1_000_000, description: 'Default billable actions per agent per UTC minute; 0 = no limit.' }),
    LIMIT_ACTIONS_PER_HOUR: Type.Integer({ default: 2000, minimum: 0, maximum: 10_000_000, description: 'Default actions per agent per UTC hour; 0 = no limit.' }),
    LIMIT_ACTIONS_PER_DAY: Type.Integer({ default: 10_000, minimum: 0, maximum: 100_000_000, description: 'Default actions per agent per UTC day; 0 = no limit.' }),
    LIMIT_SPEND_PER_DAY_USD: Type.Number({ default: 50, minimum: 0, maximum: 1_000_000, description: 'Default spend per agent per UTC day in USD; 0 = no limit.' }),
    LIMIT_SPEND_PER_MONTH_USD: Type.Number({ default: 500, minimum: 0, maximum: 10_000_000, description: 'Default spend per agent per UTC month in USD; 0 = no limit.' }),
    LIMIT_CALLS_PER_DAY_TO_SAME_NUMBER: Type.Integer({ default: 5, minimum: 0, maximum: 10_000, description: 'Default calls per agent per UTC day to one number; 0 = no limit.' }),
    POOL_PHONE_NUMBERS: csv('Comma-separated E.164 numbers for sms and voice. `<provider>:+1…` marks a number held at another provider than the channel\'s own (`telnyx:+15555550200`): provisioning gives each agent one of those too, the sender for its sends that fail over there.'),
    POOL_WHATSAPP_SENDERS: csv('Comma-separated E.164 WhatsApp sender numbers.'),
    POOL_LINE_CHANNELS: csv('Comma-separated LINE bot user ids.'),
    EMAIL_DOMAIN: Type.String({ default: '', pattern: '^$|^[A-Za-z0-9.-]+\\.[A-Za-z]{2,}$', description: 'Domain agent email addresses are made under.' }),
    TWILIO_ACCOUNT_SID: Type.String({ default: '', pattern: '^$|^AC[0-9a-fA-F]{32}$', description: 'Twilio account SID.' }),
    TWILIO_AUTH_TOKEN: secret('Twilio auth token.'),
    TWILIO_BASE_URL: Type.String({ default: '', pattern: '^$|^https?://\\S+$', description: 'Override of the Twilio API origin.' }),
    RESEND_API_KEY: secret('Resend API key.'),
    RESEND_WEBHOOK_SECRET: secret('Resend (Svix) webhook signing secret, whsec_…'),
    RESEND_BASE_URL: Type.String({ default: '', pattern: '^$|^https?://\\S+$', description: 'Override of the Resend API base URL.' }),
    LINE_CHANNEL_ACCESS_TOKEN: secret('LINE channel access token.'),
    LINE_CHANNEL_SECRET: secret('LINE channel secret.'),
    LINE_BASE_URL: Type.String({ default: '', pattern: '^$|^https?://\\S+$', description: 'Override of the LINE API base URL.' }),
    ELEVENLABS_API_KEY: secret('ElevenLabs API key.'),
    DEEPGRAM_API_KEY: secret('Deepgram API key (speech-to-text for stream-mode calls).'),
    DEEPGRAM_BASE_URL: Type.String({ default: '', pattern: '^$|^(https?|wss?)://\\S+$', description: 'Override of the Deepgram API origin.' }),
    ELEVENLABS_BASE_URL: Type.String({ default: '', pattern: '^$|^https?://\\S+$', description: 'Override of the ElevenLabs API base URL.' }),
    DRIVERS: Type.String({
      default: '',
      pattern: '^[\\s,]*$|^[\\s,]*(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*([\\s,]+(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*)*[\\s,]*$',
      description:
        'Further driver packages to load, comma-separated npm package names (installed next to Switchboard or in the working directory), e.g. `@acme/switchboard-driver-fax`. Each reads its settings from `DRIVER_<NAME>_<KEY>`; setting DRIVERS turns demo mode off (auto).',
    }),
    ...driverChoices(),
  },
  {
    additionalProperties: false,
    patternProperties: {
      [DRIVER_SETTING_PATTERN]: Type.String({
        description:
          'A setting of a driver: `<NAME>` is its package name without scope and `driver-` prefix, upper-cased (`@acme/switchboard-driver-fax` → `FAX`), `<KEY>` a property of its settings schema in upper snake case (`apiKey` → `API_KEY`). Numbers and booleans are converted, arrays and objects are JSON; the driver\'s schema validates them.',
      }),
    },
  },
);

/** Validated, frozen settings. */
export type Settings = Readonly<Static<typeof SettingsSchema>>;

/** Names of settings that are secrets: never logged, never returned by the admin API. */
export const SECRET_SETTINGS: ReadonlySet<string> = new Set(
  Object.entries(SettingsSchema.properties)
    .filter(([, schema]) => (schema as { secret?: boolean }).secret === true)
    .map(([key]) => key),
);

/** Names of every known setting (`DRIVER_<NAME>_<KEY>` settings are matched by {@link isSettingKey}). */
export const SETTING_KEYS: readonly string[] = Object.keys(SettingsSchema.properties);

const driverSetting = new RegExp(DRIVER_SETTING_PATTERN);

/** True for a known setting name or a per-driver `DRIVER_<NAME>_<KEY>` one. */
export function isSettingKey(key: string): boolean {
  return SETTING_KEYS.includes(key) || driverSetting.test(key);
}
