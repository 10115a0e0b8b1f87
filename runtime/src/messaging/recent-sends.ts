import type { AgentActor } from '../actors/agent-actor.js';
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
