import type { NatsConnection } from '@nats-io/transport-node';
import type { AgentClient } from '../agents/agent-client.js';
import type { DeliveryService } from '../delivery/delivery-service.js';
import type { Logger } from '../logger.js';
import type { SendInFlight, SendsInFlight } from '../messaging/sends-in-flight.js';
import { DurableWork, RetryLater, type Worker } from './durable-work.js';

export interface NodeWorkOptions {
  connection: NatsConnection;
  delivery: DeliveryService;
  sends: SendsInFlight;
  agents: AgentClient;
  logger: Logger;
  leaseTtlMs: number;
  /** How long after it was stored a send may be finished by another node (see `resumeAfterMs`). */
  resumeAfterMs: number;
  /** JetStream replicas of the work stream when this creates it. */
  replicas?: number;
}

/**
 * What a runtime node keeps as durable work in JetStream: inbound deliveries (`deliver`, each callback
 * retry a redelivery, so its count outlives a node) and sends in flight (`send`, journaled before the
 * provider call and removed once the outcome is stored; one that comes back is finished by the agent's
 * actor wherever it runs now).
 */
export class NodeWork {
  readonly #work: DurableWork;
  readonly #workers: Worker[] = [];

  constructor(private readonly options: NodeWorkOptions) {
    this.#work = new DurableWork({ connection: options.connection, logger: options.logger, replicas: options.replicas ?? 1 });
    options.delivery.setQueue(async (message) => {
      await this.#work.enqueue('deliver', message.id, { messageId: message.id });
    });
    options.sends.setJournal(async (send) => {
      const { sequence } = await this.#work.enqueue('send', send.messageId, send);
      return () =>
        void this.#work.remove(sequence).catch((err: unknown) => options.logger.debug({ err, messageId: send.messageId }, 'journaled send left for its worker'));
    });
  }

  /** Starts taking work; a dead node's items come back to the others after one lease TTL, about when its agents do. */
  async start(): Promise<void> {
    const { delivery, agents, logger, leaseTtlMs: ttl, resumeAfterMs } = this.options;
    // The last attempt writes the dead letter itself, so the worker never gives up on a delivery.
    this.#workers.push(
      await this.#work.process<{ messageId: string }>('deliver', (item) => delivery.deliverQueued(item.payload.messageId, item.attempt), {
        concurrency: 64,
        ackWaitMs: ttl,
        maxDeliver: Infinity,
        retryDelayMs: (attempt) => delivery.retryDelayMs(attempt),
      }),
    );
    // A journaled send is first offered when its own node should long have finished it (its item is
    // removed then, so this rarely runs); then the agent's actor finishes it unless its node is still at it.
    this.#workers.push(
      await this.#work.process<SendInFlight>(
        'send',
        async (item) => {
          if (item.attempt === 1) throw new RetryLater(`send ${item.id} is with its own node`);
          const { outcome } = await agents.call('resumeSend', item.payload.agentId, item.payload);
          if (outcome === 'in_flight') throw new RetryLater(`send ${item.id} is still in flight`);
          if (outcome !== 'settled') logger.info({ messageId: item.id, outcome }, 'finished a send whose node died');
        },
        { concurrency: 16, ackWaitMs: ttl, maxDeliver: Infinity, retryDelayMs: (attempt) => (attempt === 1 ? resumeAfterMs : ttl) },
      ),
    );
  }

  /** Stops taking work; items in hand finish (a stopping delivery hands its item back). */
  async stop(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.stop()));
  }
}

/**
 * How long after it was stored another node may finish a send: its node has lost the agent by then if
 * it died (two lease TTLs), and a node that lost the agent makes no further attempt while the one it
 * had started ends within the send time-out.
 */
export function resumeAfterMs(leaseTtlMs: number, sendTimeoutMs: number): number {
  return Math.max(2 * leaseTtlMs, sendTimeoutMs + leaseTtlMs);
}
