import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { GatewayPorts, MetricsPort, VoiceTurnMeasure } from '@switchboard/runtime';
import type { McpCensus } from './mcp/mcp-sessions.js';

/**
 * Node.js's own metrics (heap, GC, event-loop lag). prom-client samples event-loop delay on a timer; its
 * default period, 10 ms, woke an idle gateway a hundred times a second, about half its idle CPU (BENCHMARKS.md,
 * "The idle cluster under 2 %"). At 100 ms a stall still shows within 0.1 s of its length, so the lag
 * alert's (0.5 s at p99) is still seen.
 */
export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
}

/** The gateway's Prometheus metrics, in a registry of its own so several gateways can share a process. */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'switchboard_http_requests_total',
    help: 'HTTP requests by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'switchboard_http_request_duration_seconds',
    help: 'Time from a complete request to its answer.',
    labelNames: ['route', 'method'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly messages = new Counter({
    name: 'switchboard_messages_total',
    help: 'Messages by channel, direction and status.',
    labelNames: ['channel', 'direction', 'status'] as const,
    registers: [this.registry],
  });
  readonly sends = new Counter({
    name: 'switchboard_sends_total',
    help: "Outbound messages' outcomes (the provider's answer to a send, then its receipts), by channel, provider and status.",
    labelNames: ['channel', 'provider', 'status'] as const,
    registers: [this.registry],
  });
  readonly providerAttempts = new Counter({
    name: 'switchboard_provider_send_attempts_total',
    help: 'Send attempts at each provider by outcome: accepted, refused (provably not taken: it may fail over), ambiguous (a time-out: settled at that provider, never failed over).',
    labelNames: ['channel', 'provider', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly providerFailovers = new Counter({
    name: 'switchboard_provider_failovers_total',
    help: 'Sends that went on to the next provider of their channel after one provably did not take them.',
    labelNames: ['channel', 'from', 'to'] as const,
    registers: [this.registry],
  });
  readonly providerCircuit = new Gauge({
    name: 'switchboard_provider_circuit_state',
    help: "A provider's circuit as last reported by a process sending there: 0 closed, 1 half-open (one send probing), 2 open (skipped).",
    labelNames: ['provider'] as const,
    registers: [this.registry],
  });
  readonly deadLetters = new Counter({
    name: 'switchboard_dead_letters_total',
    help: 'Dead letters written, by reason.',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  #callbackEndpoints: () => Promise<{ failing: number; disabled: number }> = async () => ({ failing: 0, disabled: 0 });
  readonly callbackEndpoints = (() => {
    const metrics = this;
    return new Gauge({
      name: 'switchboard_callback_endpoints',
      help: "Agents' callback endpoints failing with no success since (failing) and those disabled for it (disabled), read from the store when scraped.",
      labelNames: ['state'] as const,
      registers: [this.registry],
      async collect() {
        const counts = await metrics.#callbackEndpoints().catch(() => undefined);
        if (!counts) return;
        this.set({ state: 'failing' }, counts.failing);
        this.set({ state: 'disabled' }, counts.disabled);
      },
    });
  })();
  /** Webhook to agent, and callback posts: observed where deliveries run (embedded, here; in a cluster, on the runtime nodes). */
  readonly delivery = new DeliveryMetrics(this.registry);
  readonly dependencies = new DependencyGauge(this.registry);
  readonly webhookRejected = new Counter({
    name: 'switchboard_webhook_rejected_total',
    help: 'Webhooks refused, by provider and reason.',
    labelNames: ['provider', 'reason'] as const,
    registers: [this.registry],
  });
  #pendingDeadLetters: () => Promise<number> = async () => 0;
  readonly deadLettersPending = (() => {
    const metrics = this;
    return new Gauge({
      name: 'switchboard_dead_letters_pending',
      help: 'Dead letters not yet acknowledged (read from the store when scraped).',
      registers: [this.registry],
      async collect() {
        this.set(await metrics.#pendingDeadLetters().catch(() => 0));
      },
    });
  })();
  readonly spend = new Counter({
    name: 'switchboard_spend_usd_total',
    help: 'Cost of billable actions in USD (provider price when known at send, else tariff), by channel.',
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });
  readonly actions = new Counter({
    name: 'switchboard_billable_actions_total',
    help: 'Billable actions by channel and action.',
    labelNames: ['channel', 'action'] as const,
    registers: [this.registry],
  });
  readonly limitRejections = new Counter({
    name: 'switchboard_limit_rejections_total',
    help: 'Actions refused by a per-agent limit, by limit.',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });
  readonly contactRefusals = new Counter({
    name: 'switchboard_contact_refusals_total',
    help: 'Messages and calls the contact policy refused before any provider, by refusal code and channel.',
    labelNames: ['code', 'channel'] as const,
    registers: [this.registry],
  });
  #mcpCensus: () => McpCensus = () => ({ streams: 0, sessions: { sse: 0, 'streamable-http': 0 } });
  readonly sseSessions = (() => {
    const metrics = this;
    return new Gauge({
      name: 'switchboard_sse_sessions',
      help: 'Open MCP event streams: legacy HTTP+SSE (/sse) streams and Streamable HTTP GET streams (counted when scraped).',
      registers: [this.registry],
      collect() {
        this.set(metrics.#mcpCensus().streams);
      },
    });
  })();
  readonly mcpSessions = (() => {
    const metrics = this;
    return new Gauge({
      name: 'switchboard_mcp_sessions',
      help: 'MCP sessions held, with or without an open stream, by transport (counted when scraped).',
      labelNames: ['transport'] as const,
      registers: [this.registry],
      collect() {
        for (const [transport, count] of Object.entries(metrics.#mcpCensus().sessions)) this.set({ transport }, count);
      },
    });
  })();
  readonly voiceCallsActive = new Gauge({
    name: 'switchboard_voice_calls_active',
    help: 'Voice calls with a live media connection.',
    registers: [this.registry],
  });
  readonly voiceFrameDelay = new Histogram({
    name: 'switchboard_voice_frame_delay_seconds',
    help: 'Delay of a voice frame from arrival to processed, or from synthesis to sent.',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16],
    registers: [this.registry],
  });

  readonly voiceTurnLatency = new Histogram({
    name: 'switchboard_voice_turn_latency_seconds',
    help: 'A caller turn of a live call: the caller stopped speaking to the first frame of the reply sent.',
    labelNames: ['mode'],
    buckets: [0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5],
    registers: [this.registry],
  });
  readonly voiceTurnParts = new Histogram({
    name: 'switchboard_voice_turn_part_seconds',
    help: "Where a caller turn's time went: transcription, the agent's reply, speech synthesis to first audio, and what Switchboard added.",
    labelNames: ['mode', 'part'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  constructor() {
    collectProcessMetrics(this.registry);
  }

  /** Follows the runtime's events, and reads the dead-letter backlog from the store when scraped. */
  observe({ events, pendingDeadLetters, callbackEndpoints }: MetricsPort): void {
    events.on('message', ({ channel, direction, status, provider }) => {
      this.messages.inc({ channel, direction, status });
      if (direction === 'outbound' && provider !== undefined) this.sends.inc({ channel, provider, status });
    });
    events.on('deadLetter', ({ reason }) => this.deadLetters.inc({ reason }));
    this.delivery.observe(events);
    events.on('usage', ({ channel, action, cost }) => {
      this.actions.inc({ channel, action });
      this.spend.inc({ channel }, cost);
    });
    events.on('frameDelay', (seconds) => this.voiceFrameDelay.observe(seconds));
    events.on('voiceTurn', (turn) => this.#observeTurn(turn));
    events.on('limitRejected', ({ limit }) => this.limitRejections.inc({ limit }));
    events.on('contactRefused', ({ code, channel }) => this.contactRefusals.inc({ code, channel }));
    events.on('webhookRejected', ({ provider, reason }) => this.webhookRejected.inc({ provider, reason }));
    events.on('providerAttempt', ({ channel, provider, outcome }) => this.providerAttempts.inc({ channel, provider, outcome }));
    events.on('providerFailover', ({ channel, from, to }) => this.providerFailovers.inc({ channel, from, to }));
    events.on('providerCircuit', ({ provider, state }) => this.providerCircuit.set({ provider }, CIRCUIT_STATES[state]));
    this.#pendingDeadLetters = pendingDeadLetters;
    this.#callbackEndpoints = callbackEndpoints;
    for (const reason of ['agent_offline', 'callback_failed', 'send_failed', 'voicemail']) this.deadLetters.inc({ reason }, 0);
  }

  /** Reads whether the database and NATS answer (their readiness checks, cached) when scraped. */
  observeReadiness(readiness: GatewayPorts['readiness']): void {
    this.dependencies.follow(readiness);
  }

  /** Reads the MCP streams and sessions when scraped (the gateway's `mcp.census`). */
  observeMcp(census: () => McpCensus): void {
    this.#mcpCensus = census;
  }

  #observeTurn({ mode, latencyMs, ...parts }: VoiceTurnMeasure): void {
    if (latencyMs !== null) this.voiceTurnLatency.observe({ mode }, latencyMs / 1000);
    for (const [name, ms] of Object.entries(parts)) {
      if (ms !== null) this.voiceTurnParts.observe({ mode, part: name.replace(/Ms$/, '') }, ms / 1000);
    }
  }

  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.httpRequests.inc({ route, method, status: String(status) });
    this.httpDuration.observe({ route, method }, seconds);
  }
}

const CIRCUIT_STATES = { closed: 0, 'half-open': 1, open: 2 } as const;

/** Webhook-to-agent latency and callback posts, from the runtime events of the process that delivers. */
export class DeliveryMetrics {
  readonly latency: Histogram<'path'>;
  readonly callbackAttempts: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.latency = new Histogram({
      name: 'switchboard_delivery_latency_seconds',
      help: 'An inbound message from stored (its webhook answered) to delivered to its agent, by path: a live session or a callback post.',
      labelNames: ['path'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    });
    this.callbackAttempts = new Counter({
      name: 'switchboard_callback_attempts_total',
      help: "Posts to agents' callback URLs by outcome: delivered, retrying (failed, tried again later), failed (no attempt left), refused (for good).",
      labelNames: ['outcome'] as const,
      registers: [registry],
    });
    for (const path of ['session', 'callback']) this.latency.zero({ path });
    for (const outcome of ['delivered', 'retrying', 'failed', 'refused']) this.callbackAttempts.inc({ outcome }, 0);
  }

  observe(events: MetricsPort['events']): void {
    events.on('delivered', ({ path, seconds }) => this.latency.observe({ path }, seconds));
    events.on('callbackAttempt', ({ outcome }) => this.callbackAttempts.inc({ outcome }));
  }
}

/** 1 while a dependency's readiness check passes, 0 while it fails: the database always, NATS in a cluster (read when scraped, through the checks' cache). */
export class DependencyGauge {
  #readiness: Pick<GatewayPorts['readiness'], 'check'> | undefined;

  constructor(registry: Registry) {
    const gauge = this;
    new Gauge({
      name: 'switchboard_dependency_up',
      help: 'Whether a dependency answers its readiness check (1) or not (0): database (SQLite or PostgreSQL), nats (cluster only).',
      labelNames: ['dependency'] as const,
      registers: [registry],
      async collect() {
        const readiness = gauge.#readiness;
        if (!readiness) return;
        for (const dependency of ['database', 'nats']) {
          const value = await readiness.check(dependency).catch((err: unknown) => `error: ${String(err)}`);
          if (value !== undefined) this.set({ dependency }, value.startsWith('error') ? 0 : 1);
        }
      },
    });
  }

  follow(readiness: Pick<GatewayPorts['readiness'], 'check'>): void {
    this.#readiness = readiness;
  }
}
