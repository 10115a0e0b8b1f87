/**
 * The runtime's public entry: starting a runtime, its settings and logger, the ports a gateway reaches
 * it through, the agent operation catalogue's types, and loading provider drivers. Everything else
 * (store, bus, actors, cluster, audio, voice internals) is `@switchboard/runtime/internal`, for the
 * project's own gateway, tests and benchmarks.
 */
export { startEmbedded, EmbeddedRuntime } from './roles/embedded.js';
export type { EmbeddedOptions } from './roles/embedded.js';
export { startClusterGateway, ClusterGatewayRuntime } from './roles/gateway.js';
export { startNode, RuntimeNodeRuntime } from './roles/node.js';
export type { NodeOptions } from './roles/node.js';
export type { ServedRuntime, TestPorts } from './roles/served-runtime.js';
export type { RoleOptions, AttachOptions } from './roles/parts.js';
export type { GatewayPorts, AdminPort, MetricsPort, WebhookPort, VoicePort, LiveCall } from './ports.js';
export type { LocalSessions, TurnCall } from './agents/live-reach.js';
export type { ListFilter, Totals, DashboardFigures, CallbackLogPage } from './admin/operator-reads.js';
export type { AgentClient, CallOptions, ClientInput } from './agents/agent-client.js';
export { AGENT_OPERATIONS, INBOX_ENTRY_TYPES, isOperationName } from './protocol/operations.js';
export type {
  OperationName,
  OperationRequest,
  OperationInput,
  OperationResponse,
  AgentView,
  ChannelStatus,
  InboundWebhook,
  VoiceWebhook,
  WebhookAnswer,
  SendRequest,
  SendResponse,
  ProvisionRequest,
  ProvisionResult,
  DeprovisionResult,
  MakeCallRequest,
} from './protocol/operations.js';
export { loadSettings, checkSettings } from './settings/load.js';
export { contactAddress } from './compliance/contact-policy.js';
export { unsubscribeSubject } from './compliance/unsubscribe-link.js';
export type { ContactBlock, ContactBlockChange, ContactBlockSource } from './store/repositories/do-not-contact.js';
export { readSecretKey } from './secrets.js';
export { tokenWeakness } from './settings/token-strength.js';
export type { LoadSettingsOptions } from './settings/load.js';
export { SettingsSchema, SECRET_SETTINGS, SETTING_KEYS } from './settings/schema.js';
export type { Settings } from './settings/schema.js';
export { createLogger } from './logger.js';
export type { Logger, LoggerOptions } from './logger.js';
export { tracing, tracingConfigured, startTracing, inSpan, contextFromHeaders, SpanKind } from './tracing.js';
export { allowsPrivateNetworks, isDemoMode, demoPools, DEMO_EMAIL_DOMAIN } from './modes.js';
export { forbiddenCallbackHost } from './delivery/callback-address.js';
export { mayActFor } from './auth/principal.js';
export type { Principal } from './auth/principal.js';
export { AuthLockout } from './auth/lockout.js';
export type { LockoutOptions } from './auth/lockout.js';
export { SessionEpoch } from './auth/session-epoch.js';
export { resetOrchestratorToken } from './auth/orchestrator-token-reset.js';
export { backupDataDir } from './backup/backup.js';
export type { BackupOptions, BackupSummary } from './backup/backup.js';
export { restoreDataDir } from './backup/restore.js';
export type { RestoreOptions, RestoreSummary } from './backup/restore.js';
export type { BackupManifest } from './backup/archive.js';
export type { ClusterRole } from './cluster/cluster-mode.js';
export { natsConnectionOptions, natsUrlForLog } from './cluster/nats-connection.js';
export { partitionsServed } from './cluster/partitioned-actors.js';
export type { PoolName, PoolEntry } from './store/repositories/pools.js';
export { poolEntryOf } from './store/repositories/pools.js';
export { POOLS, poolChannel } from './provisioning/channels.js';
export { keyInUse } from './store/repositories/idempotency.js';
export type { IdempotencySlot, IdempotentResponse } from './store/repositories/idempotency.js';
export type { Period } from './billing/periods.js';
export type { CallView, CallDetail, CallQuery } from './voice/call-reads.js';
export type { CallTaskRecord, NewTask, ReplyTaskRecord, StoredTask, TaskKind } from './store/repositories/tasks.js';
export { REPLY_TYPES } from './inbox/replies.js';
export type { ReplyCheck, ReplyStart } from './inbox/replies.js';
export { replyTaskState } from './tasks/reply-task.js';
export type { ReplyOutcome, ReplyTaskState } from './tasks/reply-task.js';
export { callTaskState, taskExpired } from './tasks/call-task.js';
export type { CallOutcome, CallTaskState } from './tasks/call-task.js';
export type { CallLedgerRecord, LedgerTurn, TranscriptLine, CallSummary } from './voice/call-ledger.js';
export type { Window } from './limits/windows.js';
export type { AgentEvent, InboundMessageData, MessageStatusData } from './delivery/agent-events.js';
export type { VoiceTurnMeasure } from './events.js';
export { loadDriver, checkDriver, checkSdkRange } from './drivers/loader.js';
export type { DriverSpec, PackageImporter } from './drivers/loader.js';
export { driverSpecs, driverSettingsName, parseDriverList, settingsFromEnv, envKeyOf } from './drivers/driver-settings.js';
export { BUILT_IN_DRIVERS, builtInDriverSpecs } from './drivers/built-in.js';
export { channelRoutes, parseRoutes } from './messaging/routing.js';
export type { Clock } from './actors/operation.js';
