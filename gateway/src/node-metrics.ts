import { Gauge, Registry } from 'prom-client';
import type { RuntimeNodeRuntime } from '@switchboard/runtime';
import { DeliveryMetrics, DependencyGauge, collectProcessMetrics } from './metrics.js';

/**
 * A runtime node's Prometheus metrics, served on its HEALTH_PORT at `/metrics`: what only the node
 * knows (its partitions, its lease heartbeat, its view of the cluster) read when scraped, and the
 * deliveries it runs (webhook to agent, callback posts) counted from its events. What a node does for
 * agents (sends, dead letters, usage) reaches the gateways' metrics as forwarded events.
 */
export class NodeMetrics {
  readonly registry = new Registry();
  readonly delivery = new DeliveryMetrics(this.registry);

  constructor(runtime: RuntimeNodeRuntime) {
    collectProcessMetrics(this.registry);
    this.delivery.observe(runtime.events);
    new DependencyGauge(this.registry).follow(runtime.readiness);
    const { placement } = runtime;
    const leases = placement.leases;
    this.#gauge('switchboard_node_partitions_held', 'Partitions this node holds a lease on and serves now.', () => leases.owned().length);
    this.#gauge('switchboard_cluster_partitions', 'Partitions the agents are spread over (CLUSTER_PARTITIONS).', () => leases.partitions);
    this.#gauge('switchboard_cluster_live_nodes', 'Runtime nodes whose lease heartbeat this node saw within the lease TTL, itself included.', () => leases.liveNodes().length);
    this.#gauge('switchboard_node_lease_ttl_seconds', 'The lease TTL in force: a node whose heartbeat is this old has lost its partitions.', () => leases.ttlMs / 1000);
    this.#gauge('switchboard_node_lease_heartbeat_age_seconds', "Seconds since this node's lease heartbeat last went through (+Inf before the first).", () =>
      leases.heardAt === undefined ? Infinity : (Date.now() - leases.heardAt) / 1000,
    );
    new Gauge({
      name: 'switchboard_node_problems',
      help: 'What its readiness reports, by kind: partitions held but not listening or failing (partitions), store or heartbeat trouble or its share kept by others (leases).',
      labelNames: ['kind'] as const,
      registers: [this.registry],
      collect() {
        this.set({ kind: 'partitions' }, placement.problems().length);
        this.set({ kind: 'leases' }, placement.leaseProblems().length);
      },
    });
  }

  #gauge(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }
}
