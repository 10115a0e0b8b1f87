import type { CallSession } from './call-session.js';

/**
 * Where a call's session waits between the process that admits the call and the one that takes its
 * media connection. Embedded both are this process ({@link MemoryCallDirectory}); in a cluster a
 * runtime node admits the call and a gateway takes its media WebSocket, so the session crosses
 * through JetStream KV (KvCallDirectory, bucket `sb_calls`).
 */
export interface CallDirectory {
  /** Stores the session as it is now (id, agent, parties, prompts, purpose, callSid when known). */
  put(session: CallSession): Promise<void>;
  /** The session put under this id; undefined when none (unknown, ended or expired). */
  get(sessionId: string): Promise<CallSession | undefined>;
  /** Forgets a session whose call ended. */
  delete(sessionId: string): Promise<void>;
}

/** In process: the session itself, by id, until its call ends. */
export class MemoryCallDirectory implements CallDirectory {
  readonly #sessions = new Map<string, CallSession>();

  async put(session: CallSession): Promise<void> {
    this.#sessions.set(session.sessionId, session);
  }

  async get(sessionId: string): Promise<CallSession | undefined> {
    return this.#sessions.get(sessionId);
  }

  async delete(sessionId: string): Promise<void> {
    this.#sessions.delete(sessionId);
  }
}
