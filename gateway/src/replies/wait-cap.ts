import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { replyTaskState, type GatewayPorts, type Principal } from '@switchboard/runtime';

/** The most reply tasks read to count one principal's open ones: past it, the principal is at any sane cap. */
const MAX_TASKS_READ = 200;

/** Who a wait is counted for: client tokens of one agent together; a team or orchestrator token per agent it acts for. */
interface Holder {
  readonly key: string;
  readonly agentId: string;
  /** The owners of the holder's reply tasks (SQL LIKE), as `ToolTasks` writes them. */
  readonly owners: string;
}

function holderOf(principal: Principal, agentId: string): Holder {
  if (principal.kind === 'client') return { key: `client:${principal.agentId}`, agentId: principal.agentId, owners: `client:${principal.agentId}%` };
  return { key: `${principal.kind}:${agentId}`, agentId, owners: principal.kind };
}

/**
 * Caps the waits for a reply one principal has at once: waits held on this gateway (the REST long
 * poll, the tool without tasks) and reply tasks still waiting (read from the store, so every
 * gateway sees them). One more is refused RATE_LIMITED with Retry-After: when the soonest of them ends.
 * Held waits are counted per gateway; tasks made at the same instant on two gateways may pass it by one each.
 */
export class ReplyWaitCap {
  /** The deadlines (ms) of the waits held here, by holder. */
  readonly #held = new Map<string, Set<{ readonly endsAt: number }>>();

  constructor(
    private readonly ports: Pick<GatewayPorts, 'tasks' | 'replies'>,
    /** Waits per principal; 0: no cap. */
    private readonly max: number,
  ) {}

  /** Holds one wait of `waitMs` for the principal (released by the returned function), or refuses it at the cap. */
  async hold(principal: Principal, agentId: string, waitMs: number): Promise<() => void> {
    if (this.max === 0) return () => {};
    const holder = holderOf(principal, agentId);
    const mine = { endsAt: Date.now() + waitMs };
    // Taken before the store is read, so concurrent waits on this gateway count each other.
    let held = this.#held.get(holder.key);
    if (!held) this.#held.set(holder.key, (held = new Set()));
    held.add(mine);
    const release = () => {
      held.delete(mine);
      if (held.size === 0 && this.#held.get(holder.key) === held) this.#held.delete(holder.key);
    };
    try {
      await this.#check(holder, held.size, mine);
    } catch (err) {
      release();
      throw err;
    }
    return release;
  }

  /** Refuses a new reply task when the principal is at the cap. */
  async admitTask(principal: Principal, agentId: string): Promise<void> {
    if (this.max === 0) return;
    const holder = holderOf(principal, agentId);
    await this.#check(holder, (this.#held.get(holder.key)?.size ?? 0) + 1);
  }

  /** Throws RATE_LIMITED when `counted` (this one included) and the open reply tasks pass the cap; Retry-After: when another ends. */
  async #check(holder: Holder, counted: number, self?: object): Promise<void> {
    const ends = [...(this.#held.get(holder.key) ?? [])].filter((w) => w !== self).map((w) => w.endsAt);
    if (counted <= this.max) {
      const now = new Date();
      const tasks = await this.ports.tasks.openReplies(holder.agentId, holder.owners, now, MAX_TASKS_READ);
      for (const task of tasks) {
        const found = await this.ports.replies.check(task.agentId, task.conversationId, task.afterCursor);
        if (replyTaskState(task, found, now.getTime()).status !== 'working') continue;
        ends.push(Date.parse(task.deadlineAt));
        if (++counted > this.max) break;
      }
      if (counted <= this.max) return;
    }
    const soonest = Math.min(...ends);
    const retryAfter = Math.max(1, Math.ceil((soonest - Date.now()) / 1000));
    throw new SwitchboardError(
      ErrorCodes.RATE_LIMITED,
      `This principal already waits for ${this.max} replies (REST long polls, MCP waits and reply tasks together; REPLY_WAITS_PER_PRINCIPAL); end one (cancel a task) or retry after ${retryAfter} s.`,
      { retryAfter },
    );
  }
}
