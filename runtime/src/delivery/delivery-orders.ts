import type { LiveReach } from '../agents/live-reach.js';
import type { RuntimeEvents } from '../events.js';
import type { SqlStatement } from '../store/database.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import { messageDeadLetter, type DeadLetterRepository } from '../store/repositories/dead-letters.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { WorkQueue } from '../work/work-queue.js';

/** What storing an inbound message asks of the delivery chain: a letter in its commit, or its delivery queued after it. */
export interface InboundDelivery {
  /**
   * For an agent that no one would hear now (no live session, no callback URL): the dead letter its
   * delivery would write at once, as a statement to commit in the same atomic group as the message (it
   * goes in only if the message does). One commit per webhook instead of two, and the message is never
   * pending. Undefined when the chain must run; call {@link lettered} after the commit.
   */
  offlineLetter(message: MessageRecord, agent: AgentRecord): SqlStatement | undefined;
  /** Reports the letter of {@link offlineLetter}, once committed with its message. */
  lettered(message: MessageRecord): void;
  /**
   * Queues the delivery of a stored inbound message (a repeat of a queued one is dropped); resolves once
   * it is queued, so that whichever process runs deliveries takes it even if this one dies next.
   */
  schedule(message: MessageRecord, agent?: AgentRecord): Promise<void>;
}

/**
 * Orders deliveries without running them: what a process that stores inbound messages at the edge
 * (a cluster gateway) needs, the `deliver` work item the runtime nodes' DeliveryService runs. The
 * DeliveryService orders through it too, so the letter-or-queue decision is made in one place.
 */
export class DeliveryOrders implements InboundDelivery {
  constructor(
    private readonly deadLetters: Pick<DeadLetterRepository, 'insertForStoredMessageStatement'>,
    private readonly events: RuntimeEvents,
    private readonly queue: Pick<WorkQueue, 'enqueue'>,
    /** The agents' live sessions, wherever they are held (a view that follows presence, in a cluster). */
    private readonly live: Pick<LiveReach, 'holds'>,
  ) {}

  /** Whether an event for this agent would reach anyone: a live session or a callback URL. */
  reachable(agent: AgentRecord): boolean {
    return agent.callbackUrl !== null || this.live.holds(agent.agentId);
  }

  offlineLetter(message: MessageRecord, agent: AgentRecord): SqlStatement | undefined {
    if (this.reachable(agent)) return undefined;
    return this.deadLetters.insertForStoredMessageStatement(messageDeadLetter(message, 'agent_offline', 0), message.id);
  }

  lettered(message: MessageRecord): void {
    this.events.emit('deadLetter', { agentId: message.agentId, reason: 'agent_offline' });
  }

  async schedule(message: MessageRecord): Promise<void> {
    await this.enqueue(message);
  }

  /** Queues the `deliver` item of a stored message; whether it was queued already. */
  async enqueue(message: MessageRecord): Promise<boolean> {
    const { duplicate } = await this.queue.enqueue('deliver', message.id, { messageId: message.id });
    return duplicate;
  }
}
