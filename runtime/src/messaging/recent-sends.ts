import type { AgentActor } from '../actors/agent-actor.js';
import type { SendResponse } from '../protocol/operations.js';
import type { MessageStatus } from '@switchboard/sdk';
import { UNSETTLED_STATUSES, type MessageRecord } from '../store/repositories/messages.js';

/**
 * The messages an agent's actor sent from this process and that have no final status yet, by their
 * provider id: a provider's receipt for one needs no read of the message (`applyReceipt`: its inbox
 * entry is conditional on the stored status, not on the one kept here). Kept with the actor, so an
 * agent that goes idle or to another node takes nothing along; at most `perAgent` each.
 */
export class RecentSends {
  readonly #byActor = new WeakMap<AgentActor, Map<string, KeptSend>>();

  constructor(private readonly perAgent = 1_000) {}

  /**
   * Keeps a message the provider took, with the status it answered, from the moment it answered:
   * `stored` is the commit of that answer, which a receipt waits for.
   */
  remember(actor: AgentActor, message: MessageRecord, stored: Promise<unknown>): void {
    if (message.externalId === null || !UNSETTLED_STATUSES.includes(message.status)) return;
    let sent = this.#byActor.get(actor);
    if (!sent) this.#byActor.set(actor, (sent = new Map()));
    const externalId = message.externalId;
    const kept: KeptSend = { message, stored: stored.then(() => true, () => false) };
    sent.set(externalId, kept);
    // A commit that failed leaves nothing to apply a receipt over.
    void kept.stored.then((ok) => ok || this.forget(actor, externalId));
    // Oldest first in a Map: a send whose receipts never came makes room for newer ones.
    if (sent.size > this.perAgent) sent.delete(sent.keys().next().value!);
  }

  /** The kept message with this provider id, once its provider's answer is committed; undefined if none (or the commit failed). */
  async find(actor: AgentActor, externalId: string): Promise<MessageRecord | undefined> {
    const kept = this.#byActor.get(actor)?.get(externalId);
    if (!kept || !(await kept.stored)) return undefined;
    return this.#byActor.get(actor)?.get(externalId)?.message;
  }

  /** Keeps the message's new status, or lets it go once the status is final. */
  update(actor: AgentActor, message: MessageRecord): void {
    if (message.externalId === null) return;
    const kept = this.#byActor.get(actor)?.get(message.externalId);
    if (!kept) return;
    if (UNSETTLED_STATUSES.includes(message.status)) kept.message = message;
    else this.forget(actor, message.externalId);
  }

  forget(actor: AgentActor, externalId: string): void {
    this.#byActor.get(actor)?.delete(externalId);
  }
}

interface KeptSend {
  message: MessageRecord;
  /** Whether the provider's answer was committed. */
  readonly stored: Promise<boolean>;
}

/** What a receipt's inbox entry and the agent's `message.status` event need of the message it is about. */
export type SentMessage = Pick<MessageRecord, 'id' | 'agentId' | 'channel' | 'from' | 'to' | 'externalId' | 'provider' | 'status'>;

/**
 * The messages sent through this process (its REST and MCP sends), as their send answered, by agent and
 * provider id, until their status is final: a receipt applied at the edge for one of them (inbound.ts)
 * needs no read of it. A receipt that comes to another gateway reads the message. The status kept is a
 * hint only (a receipt's entry is conditional on the stored status). At most `most`; the oldest go first.
 */
export class SentThroughHere {
  readonly #sent = new Map<string, SentMessage>();

  constructor(private readonly most = 10_000) {}

  remember(agentId: string, sent: SendResponse): void {
    const status = sent.status as MessageStatus;
    if (!UNSETTLED_STATUSES.includes(status)) return;
    const { messageId: id, channel, from, to, externalId, provider } = sent;
    this.#sent.set(key(agentId, externalId), { id, agentId, channel, from, to, externalId, provider: provider ?? null, status });
    if (this.#sent.size > this.most) this.#sent.delete(this.#sent.keys().next().value!);
  }

  find(agentId: string, externalId: string): SentMessage | undefined {
    return this.#sent.get(key(agentId, externalId));
  }

  /** Keeps the message's new status, or lets it go once the status is final. */
  update(message: SentMessage, status: MessageStatus): void {
    const at = key(message.agentId, message.externalId ?? '');
    if (!this.#sent.has(at)) return;
    if (UNSETTLED_STATUSES.includes(status)) this.#sent.set(at, { ...message, status });
    else this.#sent.delete(at);
  }
}

function key(agentId: string, externalId: string): string {
  return `${agentId}\n${externalId}`;
}
