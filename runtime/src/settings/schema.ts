import { Type, type Static } from '@sinclair/typebox';
import { BILLING_SETTINGS } from './billing-settings.js';
import { MESSAGING_SETTINGS } from './messaging-settings.js';
import { PROVIDER_SETTINGS } from './provider-settings.js';
import { secret } from './setting-kinds.js';
import { VOICE_SETTINGS } from './voice-settings.js';

/** Per-driver settings: `DRIVER_<NAME>_<KEY>`, checked against the driver's own schema when it loads. */
export const DRIVER_SETTING_PATTERN = '^DRIVER_[A-Z0-9]+(_[A-Z0-9]+)+$';

/**
 * Every setting Switchboard reads, by its environment name. One schema validates the environment
 * and the env file at start-up, feeds the admin API's save route, and documents the keys. The process's
 * own settings are here; messaging, voice, billing and provider settings come from their modules, in
 * this order (the order of .env.example and docs/configuration.md).
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
    ...MESSAGING_SETTINGS,
    ...VOICE_SETTINGS,
    ...BILLING_SETTINGS,
    ...PROVIDER_SETTINGS,
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
