import type { GatewayPorts, ReplyCheck } from '@switchboard/runtime';

/** How often a wait re-reads the store without a hint: inbox hints are not guaranteed to arrive (core NATS). */
export const RE_READ_MS = 10_000;

/**
 * Bounded waits for a counterpart's reply (the REST long poll, and the tool for clients without
 * tasks). A wait follows the inbox hints of every gateway and re-reads the store on each hint for its
 * agent and on a slow timer; the store is the truth. `close` ends every wait at once (shutdown).
 */
export class ReplyWaits {
  readonly #closing = new AbortController();

  constructor(
    private readonly ports: Pick<GatewayPorts, 'replies' | 'reach'>,
    private readonly reReadMs = RE_READ_MS,
  ) {}

  /** Ends every wait now: each answers what it has (no reply, and its cursor). */
  close(): void {
    this.#closing.abort();
  }

  /**
   * The first reply after `after`, waiting up to `waitMs` for one; ends early (with what it has)
   * when `signal` aborts (the client went away) or the gateway closes.
   */
  async wait(agentId: string, conversationId: string, after: number, waitMs: number, signal?: AbortSignal): Promise<ReplyCheck> {
    const check = () => this.ports.replies.check(agentId, conversationId, after);
    const signals = signal ? [this.#closing.signal, signal] : [this.#closing.signal];
    const ended = () => signals.some((s) => s.aborted);
    if (!(waitMs > 0) || ended()) return check();
    const deadline = Date.now() + waitMs;
    let hinted = false;
    let wake: (() => void) | undefined;
    const nudge = () => wake?.();
    // Followed before the first read: a reply committed in between is either read or hinted.
    const unfollow = this.ports.reach.followInboxes((id) => {
      if (id !== agentId) return;
      hinted = true;
      nudge();
    });
    for (const s of signals) s.addEventListener('abort', nudge);
    try {
      for (;;) {
        hinted = false;
        const found = await check();
        const left = deadline - Date.now();
        if (found.reply || ended() || left <= 0) return found;
        if (hinted) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, this.reReadMs));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    } finally {
      unfollow();
      for (const s of signals) s.removeEventListener('abort', nudge);
    }
  }
}
