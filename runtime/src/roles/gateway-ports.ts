import { StoreAdminPort, StoreMetricsPort } from '../admin/admin-port.js';
import type { AgentClient } from '../agents/agent-client.js';
import { AgentReach } from '../agents/agent-reach.js';
import { RecentAgents } from '../agents/recent-agents.js';
import type { LiveReach } from '../agents/live-reach.js';
import { Markup } from '../billing/markup.js';
import { UsageReports } from '../billing/reports.js';
import type { StoredLimits } from '../limits/stored-limits.js';
import type { DriverSet } from '../drivers/registry.js';
import { DriverWebhookPort } from '../drivers/webhook-port.js';
import type { InboundDelivery } from '../delivery/delivery-service.js';
import { EdgeInbound } from '../messaging/inbound.js';
import { SentThroughHere } from '../messaging/recent-sends.js';
import { DriverTemplatePort } from '../drivers/template-port.js';
import type { RuntimeEvents } from '../events.js';
import type { ReadinessChecks } from '../health.js';
import type { GatewayPorts, VoicePort } from '../ports.js';
import type { SecretBox } from '../secrets.js';
import type { Store } from '../store/store.js';
import { StoredCallReads } from '../voice/call-reads.js';
import { ReplyReads } from '../inbox/replies.js';
import { PersonErasure } from '../compliance/erasure.js';
import { callRecordings, type ApiAccess, type RoleOptions } from './parts.js';

/** What the ports of a process serving the API are made of. */
export interface GatewayPortParts extends RoleOptions {
  demoMode: boolean;
  store: Store;
  box: SecretBox;
  access: ApiAccess;
  agents: AgentClient;
  limits: Pick<StoredLimits, 'limitsOf'>;
  drivers: DriverSet;
  events: RuntimeEvents;
  reach: LiveReach;
  voice: VoicePort;
  readiness: ReadinessChecks;
  /** How inbound messages stored here reach their agents: the delivery chain in process, or work for the runtime nodes. */
  delivery: InboundDelivery;
}

/** The ports a gateway reaches its runtime through (see ports.ts), embedded or in a cluster. */
export function gatewayPorts(parts: GatewayPortParts): GatewayPorts {
  const { settings, store, access, events, drivers } = parts;
  const markup = new Markup(store, settings.MARKUP_PERCENT);
  // The records inbound messages are stored with: a change made through this process is read again at once.
  const records = new RecentAgents(store.agents);
  parts.agents.onChange((agentId) => records.forget(agentId));
  // The messages sent through this process, as their sends answered: their receipts need no read.
  const sent = new SentThroughHere();
  parts.agents.onSent((agentId, answer) => sent.remember(agentId, answer));
  return {
    settings,
    demoMode: parts.demoMode,
    logger: parts.logger,
    agents: parts.agents,
    tokens: access.tokens,
    lockout: access.lockout,
    sessionEpoch: access.sessionEpoch,
    idempotency: store.idempotency,
    sealer: parts.box,
    admin: new StoreAdminPort(store, new UsageReports(store, parts.limits, () => markup.percent()), markup, drivers, new PersonErasure(store, callRecordings(parts))),
    reach: new AgentReach(store, parts.reach),
    metrics: new StoreMetricsPort(events, store),
    webhooks: new DriverWebhookPort(drivers, events, new EdgeInbound({ drivers, events, logger: parts.logger, delivery: parts.delivery }, store, records, parts.agents, sent)),
    templates: new DriverTemplatePort(drivers),
    voice: parts.voice,
    calls: new StoredCallReads(store),
    tasks: store.tasks,
    replies: new ReplyReads(store.inbox),
    readiness: parts.readiness,
  };
}
