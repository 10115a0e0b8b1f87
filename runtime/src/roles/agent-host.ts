import { ContactPolicy } from '../compliance/contact-policy.js';
import { RecipientPlaces } from '../compliance/recipient-place.js';
import { complianceOperations } from '../compliance/operations.js';
import { REFUSALS_KEPT_MS, RecordedContactPolicy } from '../compliance/refusals.js';
import { ActorSystem } from '../actors/actor-system.js';
import { servingAll } from '../actors/operation.js';
import type { AgentClient } from '../agents/agent-client.js';
import { AGENT_OPERATIONS } from '../protocol/operations.js';
import type { LiveReach } from '../agents/live-reach.js';
import { lifecycleOperations } from '../agents/operations.js';
import type { TokenService } from '../auth/token-service.js';
import { Tariffs } from '../billing/tariffs.js';
import type { Bus } from '../bus/bus.js';
import { callbackFetch } from '../delivery/callback-address.js';
import { DeliveryService } from '../delivery/delivery-service.js';
import { allowsPrivateNetworks } from '../modes.js';
import { deliveryOperations } from '../delivery/operations.js';
import { parseRetrySchedule } from '../settings/retry-schedule.js';
import type { DriverSet } from '../drivers/registry.js';
import { ProviderRouter, channelRoutes } from '../messaging/routing.js';
import type { RuntimeEvents } from '../events.js';
import { inboxOperations } from '../inbox/operations.js';
import { backfillConversations } from '../conversations/backfill.js';
import { conversationOperations } from '../conversations/operations.js';
import { InboxRetention } from '../inbox/retention.js';
import { EXPIRED_TASK_KEPT_MS } from '../tasks/call-task.js';
import { Limiter } from '../limits/limiter.js';
import { defaultLimits } from '../limits/limits.js';
import { limitOperations } from '../limits/operations.js';
import { messagingOperations } from '../messaging/operations.js';
import { RecentSends } from '../messaging/recent-sends.js';
import { Reconciler } from '../messaging/reconciler.js';
import { Outbox } from '../outbox/outbox.js';
import { resumeAfterMs } from '../outbox/resume-delay.js';
import { Provisioner } from '../provisioning/provisioner.js';
import type { SecretBox } from '../secrets.js';
import type { Store } from '../store/store.js';
import type { CallDirectory } from '../voice/call-directory.js';
import { StoredCallMessages } from '../voice/call-messages.js';
import { voiceOperations } from '../voice/operations.js';
import { VoiceMessageStore } from '../voice/voice-messages.js';
import type { VoiceService } from '../voice/voice-service.js';
import type { WorkQueue } from '../work/work-queue.js';
import { callService, type RoleOptions } from './parts.js';
import type { RoleParts } from './role-process.js';

const DAY_MS = 86_400_000;
/** What the agents' side is built from: the role's parts, its live reach and call directory. */
export interface AgentHostParts extends RoleParts {
  /** Where deliveries and voice turns reach agents' live sessions. */
  reach: LiveReach;
  /** Where admitted calls wait for their media connection. */
  calls: CallDirectory;
  emailDomain: string;
  /**
   * Where deliveries, callback retries and the `send` items of older nodes run: JetStream, shared by a
   * cluster's runtime nodes (a dead node's items come back to the others after one lease TTL, about when
   * its agents do), or in process.
   */
  work: WorkQueue;
  /**
   * How old an unsent send must be for the start-up sweep to finish it: 0 embedded (no other process can
   * be at a send of this store, so every unsent one is an orphan); in a cluster, the resume delay.
   */
  sweepAgeMs: number;
}

/**
 * The agents' side, which embedded processes and runtime nodes hold and cluster gateways do not: the
 * actor system serving the operation catalogue, limits, tariffs, the delivery chain, the send outbox,
 * and the voice service the operations admit calls with.
 */
export class AgentHost {
  readonly actors: ActorSystem;
  readonly tariffs: Tariffs;
  readonly limiter: Limiter;
  readonly delivery: DeliveryService;
  readonly outbox: Outbox;
  readonly voice: VoiceService;
  readonly voiceMessages: VoiceMessageStore;
  readonly inboxRetention: InboxRetention;
  readonly reconciler: Reconciler;
  /** Which providers each send may go to, and their circuits. */
  readonly router: ProviderRouter;
  readonly #nameOldConversations: () => Promise<number>;
  /** The backfill of older conversations under way, awaited by stop (the store closes after it). */
  #naming: Promise<number> | undefined;

  constructor(parts: AgentHostParts) {
    const { settings, logger, store, bus, box, tokens, events, drivers, reach, calls, address, work } = parts;
    this.#nameOldConversations = () => backfillConversations(store, logger);
    const publicBaseUrl = () => address.url;
    this.tariffs = new Tariffs(settings.TARIFFS);
    this.limiter = new Limiter(store, defaultLimits(settings), events);
    this.delivery = new DeliveryService(
      store,
      box,
      events,
      logger,
      {
        scheduleMs: parseRetrySchedule(settings.CALLBACK_RETRY_SCHEDULE),
        timeoutMs: settings.CALLBACK_TIMEOUT_MS,
        disableAfterMs: settings.CALLBACK_DISABLE_AFTER_MS,
        fetch: callbackFetch({ allowPrivateNetworks: allowsPrivateNetworks(settings) }),
      },
      work,
      reach,
    );
    const resumeAfter = resumeAfterMs(settings.CLUSTER_LEASE_TTL_MS, settings.SEND_TIMEOUT_MS);
    this.outbox = new Outbox({
      queue: work,
      agents: parts.agents,
      store,
      logger,
      resumeAfterMs: resumeAfter,
      recheckMs: settings.CLUSTER_LEASE_TTL_MS,
      sweepAgeMs: parts.sweepAgeMs,
    });
    this.inboxRetention = new InboxRetention(store, settings.INBOX_RETENTION_DAYS, logger, settings.CALLBACK_LOG_RETENTION_DAYS);
    this.reconciler = new Reconciler({
      store,
      agents: parts.agents,
      logger,
      afterMs: settings.RECONCILE_AFTER_MS,
      boundMs: settings.RECONCILE_BOUND_MS,
      everyMs: settings.RECONCILE_SWEEP_MS,
    });
    this.voiceMessages = new VoiceMessageStore(settings.DATA_DIR, publicBaseUrl);
    const messages = new StoredCallMessages(store, events, this.delivery);
    this.router = new ProviderRouter(drivers, {
      routes: channelRoutes(settings),
      circuitFailures: settings.PROVIDER_CIRCUIT_FAILURES,
      halfOpenAfterMs: settings.PROVIDER_CIRCUIT_HALF_OPEN_MS,
      events,
    });
    this.voice = callService(parts, reach, calls, messages, publicBaseUrl);
    this.inboxRetention.also('call recording', (now) => this.voice.recordings.sweep(now));
    this.inboxRetention.also('expired task', (now) => store.tasks.sweepExpired(new Date(now - EXPIRED_TASK_KEPT_MS)));
    this.inboxRetention.also('contact refusal', (now) => store.contactRefusals.sweep(new Date(now - REFUSALS_KEPT_MS)));
    if (settings.MESSAGE_RETENTION_DAYS > 0) this.inboxRetention.also('message', (now) => store.contentRetention.sweepMessages(new Date(now - settings.MESSAGE_RETENTION_DAYS * DAY_MS)));
    if (settings.TRANSCRIPT_RETENTION_DAYS > 0) this.inboxRetention.also('call transcript', (now) => store.contentRetention.sweepTranscripts(new Date(now - settings.TRANSCRIPT_RETENTION_DAYS * DAY_MS)));
    // After each commit that appended an inbox entry, the agent's listeners on any gateway hear of it.
    events.on('inbox', ({ agentId }) => reach.inboxChanged(agentId));
    const policy = new RecordedContactPolicy(
      new ContactPolicy({
        doNotContact: store.doNotContact,
        consents: store.consents,
        places: new RecipientPlaces(),
        callingHours: settings.CALLING_HOURS === 'enforce',
        ...(parts.clock ? { clock: () => parts.clock!.now() } : {}),
      }),
      store.contactRefusals,
      events,
      logger,
    );
    // Each operation is registered by its catalogue entry, which checks what crosses the bus before an actor sees it.
    const operations = [
      ...lifecycleOperations(new Provisioner(store, tokens, box, parts.emailDomain, this.voice.recordings, (channel) => drivers.ordered(channel).slice(1).map((d) => d.manifest.provider))),
      ...limitOperations(this.limiter),
      ...voiceOperations({
        voice: this.voice,
        messages,
        limiter: this.limiter,
        tariffs: this.tariffs,
        delivery: this.delivery,
        voiceMessages: this.voiceMessages,
        events,
        logger,
        publicBaseUrl,
        reconcileBoundMs: settings.RECONCILE_BOUND_MS,
        policy,
      }),
      ...messagingOperations({
        drivers,
        delivery: this.delivery,
        events,
        box,
        logger,
        tariffs: this.tariffs,
        limiter: this.limiter,
        publicBaseUrl,
        sendRetry: { attempts: settings.SEND_MAX_ATTEMPTS, baseDelayMs: settings.SEND_RETRY_BASE_MS, timeoutMs: settings.SEND_TIMEOUT_MS },
        outbox: this.outbox,
        recentSends: new RecentSends(),
        reconcileBoundMs: settings.RECONCILE_BOUND_MS,
        policy,
        router: this.router,
      }),
      ...inboxOperations(),
      ...conversationOperations(),
      ...deliveryOperations(this.delivery),
      ...complianceOperations(box),
    ];
    this.actors = new ActorSystem({ bus, store, logger, operations: servingAll(AGENT_OPERATIONS, operations), idleMs: settings.ACTOR_IDLE_SECONDS * 1000, ...(parts.clock ? { clock: parts.clock } : {}) });
    // `check` lets through only each operation's own request, which is what each handler is typed to take.
  }

  /** Starts the delivery and outbox workers, then queues again what the last run left: pending deliveries, unsent sends. */
  async start(logger: RoleOptions['logger']): Promise<void> {
    this.router.check();
    await this.delivery.start();
    await this.outbox.start();
    const pending = await this.delivery.recover();
    if (pending > 0) logger.info({ pending }, 're-driving deliveries left pending');
    await this.outbox.sweep();
    this.inboxRetention.start();
    this.reconciler.start();
    this.#naming = this.#nameOldConversations();
  }

  /** Stops retries first (a queued delivery still pending is handed back, for another node or the next start), then the outbox. */
  async stop(): Promise<void> {
    await Promise.all([this.inboxRetention.stop(), this.reconciler.stop(), this.#naming]);
    await this.delivery.stop();
    await this.outbox.stop();
  }
}
