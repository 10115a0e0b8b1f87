import type { Store } from '../store/store.js';
import type { LiveReach, LocalSessions } from './live-reach.js';

export type { LocalSessions, TurnCall } from './live-reach.js';

/**
 * The gateway's side of reaching agents live: it serves the sessions it holds into the live reach
 * (see {@link LiveReach}: in process, or over NATS), and tells a session on connect how many messages
 * wait for its agent.
 */
export class AgentReach {
  constructor(
    private readonly store: Store,
    private readonly live: LiveReach,
  ) {}

  /**
   * Makes `local` the sessions this process reaches agents through; the gateway calls the returned
   * function whenever the sessions it holds of an agent change (opened or closed).
   */
  serve(local: LocalSessions): (agentId: string) => void {
    return this.live.serve(local);
  }

  /** Hears that an agent's inbox has a new entry, from whichever process appended it; returns the unsubscribe. */
  followInboxes(listener: (agentId: string) => void): () => void {
    return this.live.followInboxes(listener);
  }

  /** How many messages wait for the agent (dead letters it has not taken). */
  waiting(agentId: string): Promise<number> {
    return this.store.deadLetters.countPending(agentId);
  }
}
