import { NatsLiveReach, followPresence } from '../agents/live-reach.js';
import { partitionsServed } from '../cluster/partitioned-actors.js';
import { DeliveryOrders } from '../delivery/delivery-service.js';
import { receiveEvents } from '../events.js';
import { defaultLimits } from '../limits/limits.js';
import { StoredLimits } from '../limits/stored-limits.js';
import type { GatewayPorts } from '../ports.js';
import { ForwardedCallMessages } from '../voice/call-messages.js';
import { VoiceMessageStore } from '../voice/voice-messages.js';
import { CallVoicePort } from '../voice/voice-port.js';
import type { VoiceService } from '../voice/voice-service.js';
import { JetStreamWorkQueue } from '../work/jetstream-work-queue.js';
import { callService, clusterPlacement, fillPools, probeNats, startClusterProcess, type ClusterFoundation, type RoleOptions } from './parts.js';
import { ServingProcess } from './role-process.js';
import type { ServedRuntime } from './served-runtime.js';

/**
 * Starts a cluster gateway's runtime side (configured from NATS_URL, DATABASE_URL, CLUSTER_*): it
 * holds no actors and runs no deliveries; agent operations go over NATS to the node holding the
 * agent's partition. It keeps the store for tokens, idempotent answers, the operator's reads and the
 * inbound messages it verifies (stored here, their deliveries queued for the nodes), the drivers that
 * verify webhooks and run the calls on its media sockets, and reaches agents' live sessions over NATS.
 */
export function startClusterGateway(options: RoleOptions): Promise<ClusterGatewayRuntime> {
  return startClusterProcess(options, 'gateway', 'gateway', async (foundation) => {
    const runtime = new ClusterGatewayRuntime(options, foundation);
    await runtime.access.init();
    await fillPools(foundation.store, options.settings, runtime.demoMode);
    // The work stream looked up now, not at the first inbound message (which then costs no extra round trip).
    await runtime.deliveries.ready().catch((err: unknown) => options.logger.warn({ err }, 'start-up: the work stream is not reachable yet; deliveries are queued once it is'));
    return runtime;
  });
}

/** A cluster gateway's runtime side, started and stopped as one. */
export class ClusterGatewayRuntime extends ServingProcess implements ServedRuntime {
  readonly role = 'gateway' as const;
  readonly nodeId: string;
  readonly voice: VoiceService;
  readonly ports: GatewayPorts;
  /** Where the deliveries of the inbound messages stored here are queued for the runtime nodes. */
  readonly deliveries: JetStreamWorkQueue;

  constructor(options: RoleOptions, { nodeId, store, bus, calls }: ClusterFoundation) {
    const { settings } = options;
    super(options, store, bus, clusterPlacement(settings));
    this.nodeId = nodeId;
    this.deliveries = new JetStreamWorkQueue({ connection: bus.connection, replicas: settings.NATS_REPLICAS, logger: options.logger });
    const reach = new NatsLiveReach(bus);
    // Whether a message it stores would reach anyone: a live session at some gateway (presence), or a callback URL.
    followPresence(reach, bus);
    const publicBaseUrl = () => this.address.url;
    // The calls this gateway holds: admitted by a node, found in the directory when their media socket
    // connects; what a call takes for the agent goes to the agent's actor.
    this.voice = callService(this.parts(), reach, calls, new ForwardedCallMessages(this.agents), publicBaseUrl);
    probeNats(this.readiness, bus);
    // Not ready while a partition goes unserved: its agents would get 503s behind a green probe.
    this.readiness.register('partitions', partitionsServed(bus, settings.CLUSTER_PARTITIONS, 2 * settings.CLUSTER_LEASE_TTL_MS));
    // The runtime nodes' events, for this gateway's metrics.
    receiveEvents(this.events, bus);
    // What the calls held here add to inboxes (their transcripts) is announced like the nodes' entries.
    this.events.on('inbox', ({ agentId }) => reach.inboxChanged(agentId));
    this.ports = this.gatewayPorts({
      limits: new StoredLimits(store, defaultLimits(settings)),
      reach,
      voice: new CallVoicePort(this.voice, store, new VoiceMessageStore(settings.DATA_DIR, publicBaseUrl), this.audio),
      // Inbound messages stored here are delivered by the runtime nodes: their `deliver` work is queued here.
      delivery: new DeliveryOrders(store.deadLetters, this.events, this.deliveries, reach),
    });
  }

  /** Closes the audio workers, the drivers, the bus and the store; a gateway delivers nothing itself. */
  async stop(): Promise<void> {
    await this.close();
  }
}
