import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { Bus, Subscription } from '../bus/bus.js';
import type { Logger } from '../logger.js';
import { ALWAYS, type Tenure } from '../tenure.js';
import type { Store } from '../store/store.js';
import { AgentActor } from './agent-actor.js';
import { Continuation } from './continuation.js';
import { SYSTEM_CLOCK, type AgentOperation, type Clock, type Turn } from './operation.js';
import { AGENT_SUBJECT, agentOperationsWildcard, operationOfAgentSubject } from '../protocol/index.js';
import { inSpan, SpanKind, tracing } from '../tracing.js';

/**
 * Subject prefix of agent operations: `sb.agent.<partition>.<operation>` with `{agentId, ...}` as
 * payload; the partition (cluster/partitions.ts) says which runtime node of a cluster serves the agent.
 */
export { AGENT_SUBJECT };

export interface ActorSystemOptions {
  bus: Bus;
  store: Store;
  logger: Logger;
  /** What the actors answer: each operation registered by its catalogue entry (actors/operation.ts). */
  operations: readonly AgentOperation[];
  /** Idle time after which an actor is dropped from memory. */
  idleMs: number;
  /** The time operations read (the system's when absent). */
  clock?: Clock;
}

/**
 * Hosts one actor per agent: activated by its first message (state loaded from the store),
 * serial while active, passivated when idle. Reached only through the bus.
 */
export class ActorSystem {
  readonly #actors = new Map<string, AgentActor>();
  #subscription: Subscription | undefined;
  #sweeper: NodeJS.Timeout | undefined;
  readonly #operations = new Map<string, AgentOperation>();

  constructor(private readonly options: ActorSystemOptions) {
    for (const operation of options.operations) {
      if (this.#operations.has(operation.entry.name)) throw new Error(`ActorSystem: operation ${operation.entry.name} is registered twice.`);
      this.#operations.set(operation.entry.name, operation);
    }
  }

  /** Starts the idle sweeper and, unless `listen` is false (a cluster node subscribes per partition), takes every agent's operations. */
  start({ listen = true }: { listen?: boolean } = {}): void {
    if (listen) {
      this.#subscription = this.options.bus.subscribe(agentOperationsWildcard(), (data, subject) => this.dispatch(operationOfAgentSubject(subject), data), {
        queue: 'runtime',
      });
    }
    this.#sweeper = setInterval(() => this.passivateIdle(), Math.min(this.options.idleMs, 30_000));
    this.#sweeper.unref();
  }

  /** Number of actors in memory. */
  get size(): number {
    return this.#actors.size;
  }

  /** Drops actors that have been idle for longer than the idle time. */
  passivateIdle(now = Date.now()): number {
    let dropped = 0;
    for (const [id, actor] of this.#actors) {
      if (actor.idle && now - actor.lastActive >= this.options.idleMs) {
        this.#actors.delete(id);
        dropped++;
      }
    }
    return dropped;
  }

  /** Stops taking messages and waits for every mailbox to drain. */
  async stop(): Promise<void> {
    this.#subscription?.unsubscribe();
    clearInterval(this.#sweeper);
    await Promise.all([...this.#actors.values()].map((a) => a.drained()));
  }

  /** Drops from memory the actors `which` selects (their state reloads on the next message); resolves when their work drained. */
  forget(which: (agentId: string) => boolean): Promise<void> {
    const drained: Promise<void>[] = [];
    for (const [id, actor] of this.#actors) {
      if (!which(id)) continue;
      this.#actors.delete(id);
      drained.push(actor.drained());
    }
    return Promise.all(drained).then(() => undefined);
  }

  /**
   * Runs operation `name` for the payload's agent once its entry passed the payload (a refused payload
   * is not acted on), while `tenure` holds: it is asserted inside the agent's mailbox turn, right after
   * the turns queued before (a cluster node's tenure of the agent's partition; embedded, {@link ALWAYS}).
   * An operation whose entry asks for the mailbox runs in that turn; any other starts in it (the agent
   * loaded, the checks before its first wait) and finishes outside it, not holding up the next turn.
   */
  dispatch(name: string, data: unknown, tenure: Tenure = ALWAYS): Promise<unknown> {
    if (!tracing.on || !this.#operations.has(name)) return this.#dispatch(name, data, tenure);
    const agentId = (data as { agentId?: unknown } | null)?.agentId;
    const attributes = { 'switchboard.operation': name, ...(typeof agentId === 'string' ? { 'switchboard.agent_id': agentId } : {}) };
    return inSpan(`agent ${name}`, SpanKind.INTERNAL, attributes, () => this.#dispatch(name, data, tenure));
  }

  #dispatch(name: string, data: unknown, tenure: Tenure): Promise<unknown> {
    const operation = this.#operations.get(name);
    const agentId = (data as { agentId?: unknown } | null)?.agentId;
    if (!operation || typeof agentId !== 'string') {
      return Promise.reject(new SwitchboardError(ErrorCodes.BAD_REQUEST, `Unknown agent operation ${name}.`));
    }
    let run: (turn: Turn) => Promise<unknown>;
    try {
      run = operation.accept(data);
    } catch (err) {
      return Promise.reject(err);
    }
    let actor = this.#actors.get(agentId);
    if (!actor) {
      actor = new AgentActor(agentId);
      this.#actors.set(agentId, actor);
    }
    const target = actor;
    const { store, logger, clock = SYSTEM_CLOCK } = this.options;
    const started = target.enqueue(async () => {
      tenure.assert();
      if (target.state === undefined) target.state = (await store.agents.get(agentId)) ?? null;
      const running = run({ actor: target, store, tenure, logger, clock });
      if (operation.entry.mailbox) return running;
      // Handed out of the turn unawaited; handled here so a quick refusal is no unhandled rejection meanwhile.
      running.catch(() => undefined);
      return { outside: running };
    });
    const result = operation.entry.mailbox ? started : started.then((turn) => (turn as { outside: Promise<unknown> }).outside);
    return result.then((answer) => (answer instanceof Continuation ? answer.run() : answer));
  }
}
