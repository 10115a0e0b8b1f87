export { Runtime } from './runtime.js';
export type { RuntimeOptions } from './runtime.js';
export { loadSettings, checkSettings } from './settings/load.js';
export type { LoadSettingsOptions } from './settings/load.js';
export { SettingsSchema, SECRET_SETTINGS, SETTING_KEYS } from './settings/schema.js';
export type { Settings } from './settings/schema.js';
export { createLogger } from './logger.js';
export type { Logger, LoggerOptions } from './logger.js';
export { isDemoMode, demoPools, DEMO_EMAIL_DOMAIN } from './modes.js';
export { MemoryBus } from './bus/memory-bus.js';
export { NatsBus } from './bus/nats-bus.js';
export { DEFAULT_PARTITIONS, partitionOf, preferredOwner } from './cluster/partitions.js';
export { PartitionLeases, type PartitionLeasesOptions, type LeaseEnd } from './cluster/partition-leases.js';
export { PartitionedActors, type PartitionedActorsOptions } from './cluster/partitioned-actors.js';
export { checkClusterSettings, clusterNodeId, liveSubject, turnSubject, type ClusterRole } from './cluster/cluster-mode.js';
export { DurableWork, type DurableWorkOptions, type ProcessOptions, type WorkHandler, type WorkItem, type Worker } from './cluster/durable-work.js';
export { subjectMatches } from './bus/bus.js';
export type { Bus, BusHandler, Subscription, SubscribeOptions, RequestOptions } from './bus/bus.js';
export { ActorSystem, AGENT_SUBJECT } from './actors/actor-system.js';
export type { AgentOperation, AgentOperations, AgentOperationContext, ActorSystemOptions, OperationHandler } from './actors/actor-system.js';
export { AgentActor } from './actors/agent-actor.js';
export { AgentClient, type AgentClientOptions, type CallOptions } from './agents/agent-client.js';
export { AGENT_OPERATIONS, checkRequest, checkResponse, isOperationName } from './agents/catalogue.js';
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
} from './agents/catalogue.js';
export { requireAgent } from './agents/operations.js';
export { agentView } from './agents/view.js';
export { mayActFor } from './auth/principal.js';
export type { Principal } from './auth/principal.js';
export { TokenService } from './auth/token-service.js';
export { AuthLockout } from './auth/lockout.js';
export type { LockoutOptions } from './auth/lockout.js';
export { ReadinessChecks } from './health.js';
export type { Probe } from './health.js';
export { POOL_OF } from './provisioning/channels.js';
export { Provisioner, newSigningSecret } from './provisioning/provisioner.js';
export { DataDirLock } from './data-dir-lock.js';
export { SecretBox, loadSecretKey, hashToken, newToken } from './secrets.js';
export { openStore, Store } from './store/store.js';
export type { OpenStoreOptions } from './store/store.js';
export { openSqlite } from './store/sqlite/index.js';
export type { SqliteOptions } from './store/sqlite/index.js';
export { openPostgres } from './store/postgres/index.js';
export type { PostgresOptions } from './store/postgres/index.js';
export type { Database, Dialect, SqlExecutor, SqlStatement, SqlValue, ExecuteResult } from './store/database.js';
export { migrate, schemaVersion } from './store/migrate.js';
export type { Migration } from './store/migrate.js';
export { MIGRATIONS } from './store/migrations/index.js';
export type { AgentRecord, AgentChannel } from './store/repositories/agents.js';
export type { PoolName, PoolEntry } from './store/repositories/pools.js';
export type { TokenKind, TokenRecord } from './store/repositories/tokens.js';
export type { IdempotencySlot, IdempotentResponse } from './store/repositories/idempotency.js';
export { newId } from './ids.js';
export { RuntimeEvents } from './events.js';
export type { RuntimeEventMap } from './events.js';
export { loadDriver, checkSdkRange } from './drivers/loader.js';
export { DriverSet, choiceSetting } from './drivers/registry.js';
export { verifyWebhook } from './drivers/verify-webhook.js';
export { driverSpecs, driverSettingsName, parseDriverList, settingsFromEnv, envKeyOf } from './drivers/driver-settings.js';
export { BUILT_IN_DRIVERS, builtInDriverSpecs } from './drivers/built-in.js';
export type { DriverSpec, PackageImporter } from './drivers/loader.js';
export { DeliveryService } from './delivery/delivery-service.js';
export type { LiveSink, CallbackPolicy } from './delivery/delivery-service.js';
export { agentEvent } from './delivery/events.js';
export type { AgentEvent, InboundMessageData, MessageStatusData } from './delivery/events.js';
export { postCallback } from './delivery/callback-client.js';
export { Continuation } from './actors/continuation.js';
export { optKeyword } from './messaging/opt-out.js';
export type { MessageRecord, Direction, DeliveryState } from './store/repositories/messages.js';
export type { DeadLetter, DeadLetterReason } from './store/repositories/dead-letters.js';
export type { UsageRecord } from './store/repositories/usage.js';
export type { CallRecord } from './store/repositories/calls.js';
export { Tariffs, round4 } from './billing/tariffs.js';
export { UsageReports } from './billing/reports.js';
export { periodStart, windowBounds } from './billing/periods.js';
export type { Period, Window } from './billing/periods.js';
export { Limiter } from './limits/limiter.js';
export { UsageLedger, limitError } from './limits/usage-ledger.js';
export type { Admission, WindowTotals } from './limits/usage-ledger.js';
export { LIMIT_NAMES, defaultLimits, effectiveLimits } from './limits/limits.js';
export type { Limits } from './limits/limits.js';
export type { AgentLimitOverrides } from './store/repositories/limits.js';
export { VoiceService } from './voice/voice-service.js';
export { AgentTurns, parseReply } from './voice/agent-turns.js';
export type { TurnReply, Sampler } from './voice/agent-turns.js';
export { CallDialogue } from './voice/dialogue.js';
export type { DialogueAction } from './voice/dialogue.js';
export { CallSessions, newSessionId } from './voice/call-session.js';
export type { CallSession, CallPurpose, CallLine } from './voice/call-session.js';
export { VoiceMessageStore } from './voice/voice-messages.js';
export type { StoredVoiceMessage } from './voice/voice-messages.js';
export { RelayCall } from './voice/relay-call.js';
export { MediaCall } from './voice/media-call.js';
export { AudioWorkerPool } from './audio/audio-worker-pool.js';
export type { AudioWorkerPoolOptions, AudioPoolStats } from './audio/audio-worker-pool.js';
export { InboundCallAudio } from './audio/inbound-call-audio.js';
export type { InboundCallOptions, InboundAudio } from './audio/inbound-call-audio.js';
export { FramePacer } from './audio/pacer.js';
export type { FramePacerOptions } from './audio/pacer.js';
export { VoiceActivityDetector, frameFeatures } from './audio/vad.js';
export type { VadEvent, VadOptions, FrameFeatures } from './audio/vad.js';
export { FRAME_MS, MULAW_FRAME_BYTES, CALL_SAMPLE_RATE, toCallAudio, splitFrames } from './audio/framing.js';
export { decodeMulaw, encodeMulaw, decodeAlaw, encodeAlaw, MULAW_SILENCE } from './audio/g711.js';
export { Resampler, resample } from './audio/resampler.js';
export type { InboundRate } from './audio/tasks.js';
export { defaultAudioThreads } from './audio/worker-file.js';
export { StreamCall } from './voice/stream-call.js';
