import type { Channel, Driver, MessageTemplate, WebhookHandshakeAnswer, WebhookRequest } from '@switchboard/sdk';
import type { AgentClient } from './agents/agent-client.js';
import type { AgentReach } from './agents/agent-reach.js';
import type { AgentView, VoiceWebhook, WebhookAnswer } from './protocol/operations.js';
import type { OperatorReads } from './admin/operator-reads.js';
import type { AuthLockout } from './auth/lockout.js';
import type { SessionEpoch } from './auth/session-epoch.js';
import type { TokenService } from './auth/token-service.js';
import type { UsageReports } from './billing/reports.js';
import type { StoredCallReads } from './voice/call-reads.js';
import type { RuntimeEvents } from './events.js';
import type { ReadinessChecks } from './health.js';
import type { Logger } from './logger.js';
import type { SecretBox } from './secrets.js';
import type { Settings } from './settings/schema.js';
import type { IdempotencyRepository } from './store/repositories/idempotency.js';
import type { ErasureReceipt } from './compliance/erasure.js';
import type { DoNotContactRepository } from './store/repositories/do-not-contact.js';
import type { ContactRefusalRepository } from './store/repositories/contact-refusals.js';
import type { PoolRepository } from './store/repositories/pools.js';
import type { TaskRepository } from './store/repositories/tasks.js';
import type { ReplyReads } from './inbox/replies.js';

/**
 * Everything a gateway reaches the runtime through, as small ports: agent operations (the catalogue,
 * over the bus), tokens, idempotent answers, the operator's reads and writes, live reach of agents,
 * metrics' events, webhook and voice verification, the voice calls a gateway holds, MCP tasks, and readiness.
 * Built by `gatewayPorts()` (roles/gateway-ports.ts); a gateway's routes, MCP surface and sockets see nothing else.
 */
export interface GatewayPorts {
  readonly settings: Settings;
  readonly demoMode: boolean;
  readonly logger: Logger;
  /** Agent state: the catalogue's operations, each run by the agent's actor wherever it lives. */
  readonly agents: Pick<AgentClient, 'call'>;
  readonly tokens: Pick<TokenService, 'authenticate' | 'agentCreatedAt' | 'teamToken' | 'regenerateTeamToken'>;
  /** Failed authentications per address. */
  readonly lockout: Pick<AuthLockout, 'retryAfter' | 'fail' | 'succeed'>;
  /** The admin sessions' epoch in the store: a session of an older one is over (sign-out, a new orchestrator token). */
  readonly sessionEpoch: Pick<SessionEpoch, 'current' | 'advance'>;
  /** Stored answers of requests sent with an Idempotency-Key. */
  readonly idempotency: Pick<IdempotencyRepository, 'find' | 'record'>;
  /** Seals and opens what the gateway hands out and takes back (the admin session cookie). */
  readonly sealer: Pick<SecretBox, 'seal' | 'open'>;
  readonly admin: AdminPort;
  /** Live delivery and voice turns through the agent sessions a gateway holds. */
  readonly reach: Pick<AgentReach, 'serve' | 'waiting' | 'followInboxes'>;
  readonly metrics: MetricsPort;
  readonly webhooks: WebhookPort;
  readonly voice: VoicePort;
  /** The call log with each call's ledger and transcript (the calls API). */
  readonly calls: Pick<StoredCallReads, 'list' | 'get' | 'recording'>;
  /** Tasks of the MCP Tasks extension (a call placed as a task), stored so that any gateway answers for them. */
  readonly tasks: Pick<TaskRepository, 'create' | 'find' | 'cancel' | 'openReplies'>;
  /** Looks for a counterpart's reply in a conversation of an agent's inbox (waiting for a reply), from the store. */
  readonly replies: Pick<ReplyReads, 'start' | 'check'>;
  /** The provider's approved message templates (WhatsApp), through the channel's driver. */
  readonly templates: TemplatePort;
  readonly readiness: Pick<ReadinessChecks, 'run' | 'check'>;
}

/** What the operator's API reads and changes besides agent operations. */
export interface AdminPort {
  readonly reads: Pick<OperatorReads, 'messages' | 'deadLetters' | 'recentActivity' | 'usageTotals' | 'dashboard' | 'callbackLog'>;
  agents(): Promise<AgentView[]>;
  agent(agentId: string): Promise<AgentView | undefined>;
  readonly pools: Pick<PoolRepository, 'counts' | 'list' | 'add'>;
  readonly reports: Pick<UsageReports, 'usage' | 'billing'>;
  /** The global markup in percent. */
  markupPercent(): Promise<number>;
  setMarkupPercent(percent: number): Promise<void>;
  /** The provider drivers loaded in this process. */
  drivers(): readonly Driver[];
  /** The providers of a message channel in routing order (`<CHANNEL>_DRIVER`): the channel's own first. */
  providers(channel: Channel): readonly string[];
  /** The operator's do-not-contact list and its log. */
  readonly contactList: Pick<DoNotContactRepository, 'add' | 'narrow' | 'remove' | 'list' | 'history'>;
  /** The contacts the policy refused, newest first. */
  readonly refusals: Pick<ContactRefusalRepository, 'list' | 'countsSince'>;
  /** Removes a person everywhere (an erasure request), with a receipt. */
  erase(address: string): Promise<ErasureReceipt>;
}

/** What the gateway's metrics follow. */
export interface MetricsPort {
  readonly events: Pick<RuntimeEvents, 'on'>;
  /** Dead letters not yet acknowledged. */
  pendingDeadLetters(): Promise<number>;
  /** Agents' callback endpoints failing now (no success since their last failure) and those disabled for it. */
  callbackEndpoints(): Promise<{ failing: number; disabled: number }>;
}

/** Message templates a provider approved, asked of its API. */
export interface TemplatePort {
  /** The approved templates of the channel's provider; NOT_FOUND when its driver keeps none, PROVIDER_ERROR when the provider cannot be asked. */
  approved(channel: 'whatsapp'): Promise<{ provider: string; templates: MessageTemplate[] }>;
}

/** Takes a provider's webhooks: the signature checked with the channel's drivers, then what it brings stored here, at the edge. */
export interface WebhookPort {
  /** The content types the channel's driver takes webhooks in, when its driver says. */
  contentTypes(channel: Channel): readonly string[] | undefined;
  /**
   * Verifies a webhook for the agent (SIGNATURE_INVALID, counted, unless one of the channel's providers
   * signed it), stores its messages before answering, and answers as the provider expects.
   */
  receive(channel: Channel, agentId: string, request: WebhookRequest): Promise<WebhookAnswer>;
  /** A channel's driver's answer to the GET with which its provider checks the webhook URL; undefined when none checks it so. */
  handshake(channel: Channel, request: WebhookRequest): WebhookHandshakeAnswer | undefined;
}

/** The voice side a gateway holds: webhook verification and the live calls on its media sockets. */
export interface VoicePort {
  /** The provider's request, signature checked by the telephony driver; SIGNATURE_INVALID otherwise. */
  verify(webhook: VoiceWebhook): Promise<WebhookRequest>;
  /** The agent a provider's call request belongs to, found by its call id. */
  agentOfCall(request: WebhookRequest): Promise<string | undefined>;
  /** The agent a provider's recording callback belongs to, found by its call id. */
  agentOfRecording(request: WebhookRequest): Promise<string | undefined>;
  /** The file of a stored call recording, by the name on its call's row. */
  recordingPath(file: string): string | undefined;
  /** The file of a stored voice message, by its unguessable name. */
  voiceMessagePath(name: string): string | undefined;
  /** A live call driven by its media connection's frames, in the mode its first frame tells; `send` writes a text frame back. */
  openCall(mode: 'relay' | 'stream', agentId: string, hangUp: () => void, send: (text: string) => void): LiveCall;
  /** Calls live in this process. */
  readonly liveCalls: number;
}

/** A call on a media connection. */
export interface LiveCall {
  /** Handles one frame; a stream call's media frames are handled on the spot and return no promise. */
  handle(message: Record<string, unknown>): Promise<void> | undefined;
  closed(): void;
}
