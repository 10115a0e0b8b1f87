import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { Bus, Subscription } from '../bus/bus.js';
import type { Logger } from '../logger.js';
import { ALWAYS, type Tenure } from '../tenure.js';
import type { Store } from '../store/store.js';
import type { OperationName, OperationRequest, OperationResponse } from '../protocol/operations.js';
import { AgentActor } from './agent-actor.js';
import { Continuation } from './continuation.js';
import { AGENT_SUBJECT, agentOperationsWildcard, operationOfAgentSubject } from '../protocol/index.js';

/**
 * Subject prefix of agent operations: `sb.agent.<partition>.<operation>` with `{agentId, ...}` as
 * payload; the partition (cluster/partitions.ts) says which runtime node of a cluster serves the agent.
 */
export { AGENT_SUBJECT };

/** What an operation gets: the agent's actor (its state loaded) and the store. */
export interface AgentOperationContext {
  readonly actor: AgentActor;
  readonly store: Store;
  /**
   * This process's tenure of the agent: `tenure.assert()` before an effect that runs outside the
   * mailbox, and fenced writes carry it to the store (embedded: {@link ALWAYS}).
   */
  readonly tenure: Tenure;
}

/** An operation on one agent, run inside its mailbox; it may return a Continuation to finish outside it. */
export type OperationHandler = (context: AgentOperationContext, payload: { agentId: string } & Record<string, unknown>) => Promise<unknown>;

/** Operation `K` of the agent catalogue (protocol/operations.ts), typed by its request and answer. */
export type AgentOperation<K extends OperationName = OperationName> = (
  context: AgentOperationContext,
  request: OperationRequest<K>,
) => Promise<OperationResponse<K> | Continuation<OperationResponse<K>>>;

/** An implementation of every operation of the catalogue. */
export type AgentOperations = { [K in OperationName]: AgentOperation<K> };

export interface ActorSystemOptions {
  bus: Bus;
  store: Store;
  logger: Logger;
  /** What the actors answer; set by {@link ActorSystem.serve} when not given here. */
  operations?: Readonly<Record<string, OperationHandler>>;
  /** Checks an operation's payload before it runs, and throws to refuse it (the runtime's catalogue check). */
  check?: (operation: string, payload: unknown) => void;
  /** Idle time after which an actor is dropped from memory. */
  idleMs: number;
}

/**
 * Hosts one actor per agent: activated by its first message (state loaded from the store),
 * serial while active, passivated when idle. Reached only through the bus.
 */
export class ActorSystem {
  readonly #actors = new Map<string, AgentActor>();
  #subscription: Subscription | undefined;
  #sweeper: NodeJS.Timeout | undefined;
  #operations: Readonly<Record<string, OperationHandler>> | undefined;

  constructor(private readonly options: ActorSystemOptions) {
    this.#operations = options.operations;
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

  /** Sets what every actor answers (the runtime builds them once its services exist). */
  serve(operations: Readonly<Record<string, OperationHandler>>): void {
    this.#operations = operations;
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
   * Runs operation `name` in the mailbox of the payload's agent, once the `check` option passed it
   * (a refused payload is not acted on) and while `tenure` holds: it is asserted inside the mailbox
   * turn right before the operation, and handed to the operation (a cluster node's tenure of the
   * agent's partition; embedded, {@link ALWAYS}).
   */
  dispatch(name: string, data: unknown, tenure: Tenure = ALWAYS): Promise<unknown> {
    const operation = this.#operations && Object.hasOwn(this.#operations, name) ? this.#operations[name] : undefined;
    const payload = data as { agentId?: unknown } | null;
    const agentId = payload?.agentId;
    if (!operation || typeof agentId !== 'string') {
      return Promise.reject(new SwitchboardError(ErrorCodes.BAD_REQUEST, `Unknown agent operation ${name}.`));
    }
    try {
      this.options.check?.(name, data);
    } catch (err) {
      return Promise.reject(err);
    }
    let actor = this.#actors.get(agentId);
    if (!actor) {
      actor = new AgentActor(agentId);
      this.#actors.set(agentId, actor);
    }
    const target = actor;
    const turn = target.enqueue(async () => {
      tenure.assert();
      if (target.state === undefined) target.state = (await this.options.store.agents.get(agentId)) ?? null;
      const context: AgentOperationContext = { actor: target, store: this.options.store, tenure };
      return operation(context, payload as { agentId: string });
    });
    return turn.then((result) => (result instanceof Continuation ? result.run() : result));
  }
}
