import { Type } from '@sinclair/typebox';
import { RETRY_SCHEDULE_PATTERN } from './retry-schedule.js';

/** Settings of message delivery: callbacks to agents, provider routes, circuits and send retries, retention and reconciliation. */
export const MESSAGING_SETTINGS = {
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
};
