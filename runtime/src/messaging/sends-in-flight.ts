import type { AgentClient } from '../agents/agent-client.js';
import type { ResumeSendRequest } from '../agents/catalogue.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/store.js';

/** What another node needs to finish a send whose node died during the provider call. */
export type SendInFlight = ResumeSendRequest;

/**
 * Cluster mode: stores a send in flight as durable work; resolves once it is stored, with the function
 * that removes it once the send's outcome is in the store.
 */
export type SendJournal = (send: SendInFlight) => Promise<() => void>;

/**
 * The sends this node is calling a provider for right now. In a cluster each is also journaled as
 * durable work, so when its node dies another finishes it (`resumeSend`), and a resume that reaches
 * the node still at it learns it is in flight.
 */
export class SendsInFlight {
  readonly #local = new Set<string>();
  #journal: SendJournal | undefined;

  constructor(private readonly logger: Logger) {}

  /** Cluster mode: sends are journaled as durable work through `journal`. */
  setJournal(journal: SendJournal): void {
    this.#journal = journal;
  }

  /** Whether this node is calling the provider for the message now. */
  has(messageId: string): boolean {
    return this.#local.has(messageId);
  }

  /** Marks a send as in flight here (a resumed one, whose journal is what asked); call the returned function when it ends. */
  hold(messageId: string): () => void {
    this.#local.add(messageId);
    return () => this.#local.delete(messageId);
  }

  /**
   * Marks a stored send as in flight here and, in a cluster, journals it; call the returned function
   * once its outcome is stored (with `false` when it could not be: the journal entry then stays, for
   * the node that holds the agent now). A journal that cannot be written does not stop the send: the message
   * is stored, and the caller has no answer yet, so nothing acknowledged depends on it.
   */
  async begin(send: SendInFlight): Promise<(outcomeStored?: boolean) => void> {
    const release = this.hold(send.messageId);
    let remove = () => {};
    if (this.#journal) {
      try {
        remove = await this.#journal(send);
      } catch (err) {
        this.logger.warn({ err, messageId: send.messageId }, 'send in flight not journaled; if this node dies, a start-up sweep finishes it');
      }
    }
    return (outcomeStored = true) => {
      release();
      if (outcomeStored) remove();
    };
  }

  /**
   * Has the agents' actors finish, in the background, the sends stored before `before` and never sent
   * (their process died during the provider call); an actor skips one its node is still at.
   */
  async resumeUnsent(store: Store, agents: AgentClient, before: Date): Promise<void> {
    const unsent = await store.messages.unsentBefore(before);
    if (unsent.length === 0) return;
    this.logger.info({ unsent: unsent.length }, 'finishing sends left unsent by a process that died');
    for (const message of unsent) {
      void agents.call('resumeSend', message.agentId, { messageId: message.id }).then(
        ({ outcome }) => this.logger.info({ messageId: message.id, outcome }, 'send left unsent, finished'),
        (err: unknown) => this.logger.warn({ err, messageId: message.id }, 'send left unsent could not be finished; it is tried again at the next start'),
      );
    }
  }
}
