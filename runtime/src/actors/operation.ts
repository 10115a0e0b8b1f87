import type { Static, TSchema } from '@sinclair/typebox';
import type { Logger } from '../logger.js';
import { requestOf, type OperationEntry } from '../protocol/operations.js';
import type { Store } from '../store/store.js';
import type { Tenure } from '../tenure.js';
import type { AgentActor } from './agent-actor.js';
import type { Continuation } from './continuation.js';

/** A repository of the store an operation may name (and `db`, for its commits of several writes). */
export type RepositoryName = Exclude<keyof Store, 'close'>;

/** The time as an operation reads it. */
export interface Clock {
  now(): Date;
}

/** The system's clock. */
export const SYSTEM_CLOCK: Clock = Object.freeze({ now: () => new Date() });

/** What every operation sees: its agent's actor, the repositories it names, a logger and a clock. */
interface BaseContext<R extends RepositoryName> {
  /** The agent's actor: its id, its state as the turn found it (null: no such agent), its ledger. */
  readonly actor: AgentActor;
  /** Only the repositories the operation named in `needs`. */
  readonly store: Pick<Store, R>;
  readonly logger: Logger;
  readonly clock: Clock;
}

/**
 * What one run of an operation sees, as a Temporal activity sees only its Context. With a tenure
 * (its entry's `tenure`), the process's tenure of the agent: `tenure.assert()` before an effect
 * outside the mailbox, and fenced writes carry it to the store (embedded: always holds).
 */
export type OperationContext<R extends RepositoryName = never, T extends boolean = false> = BaseContext<R> & (T extends true ? { readonly tenure: Tenure } : unknown);

/** What the actor system hands an operation's turn; the operation narrows it to its own context. */
export interface Turn {
  readonly actor: AgentActor;
  readonly store: Store;
  readonly tenure: Tenure;
  readonly logger: Logger;
  readonly clock: Clock;
}

/** One agent operation as the actor system registers it: its catalogue entry and its handler. */
export interface AgentOperation {
  readonly entry: OperationEntry;
  /** The repositories its handler sees. */
  readonly needs: readonly RepositoryName[];
  /** Checks a payload against the entry (BAD_REQUEST when it does not match) and gives the run of the checked request. */
  accept(payload: unknown): (turn: Turn) => Promise<unknown>;
}

/** How operation `E` is handled: what it answers, or a Continuation to finish outside the mailbox. */
export interface OperationHandling<E extends OperationEntry, R extends RepositoryName> {
  readonly needs: readonly R[];
  handle(context: OperationContext<R, E['tenure']>, request: Static<E['request']>): Promise<Static<E['answer']> | Continuation<Static<E['answer']>>>;
}

/**
 * An operation: its catalogue entry (protocol/catalogue/) and its handler, which sees only the
 * repositories it names. The actor system registers it by its entry and checks each request there.
 */
export function defineOperation<E extends OperationEntry<string, TSchema, TSchema>, const R extends RepositoryName = never>(entry: E, handling: OperationHandling<E, R>): AgentOperation {
  const narrowed = new WeakMap<Store, Pick<Store, R>>();
  const repositoriesOf = (store: Store): Pick<Store, R> => {
    let picked = narrowed.get(store);
    if (!picked) {
      picked = Object.freeze(Object.fromEntries(handling.needs.map((name) => [name, store[name]]))) as Pick<Store, R>;
      narrowed.set(store, picked);
    }
    return picked;
  };
  return {
    entry,
    needs: handling.needs,
    accept(payload) {
      const request = requestOf(entry, payload);
      return ({ actor, store, tenure, logger, clock }) => {
        const base: BaseContext<R> = { actor, store: repositoriesOf(store), logger, clock };
        const context = (entry.tenure ? { ...base, tenure } : base) as OperationContext<R, E['tenure']>;
        return handling.handle(context, request);
      };
    },
  };
}

/**
 * The operations, once each entry of `catalogue` is served by exactly one of them, with that very entry
 * (not a copy with other schemas); throws naming what is missing or foreign. A node serves the whole
 * catalogue or does not start.
 */
export function servingAll(catalogue: Readonly<Record<string, OperationEntry>>, operations: readonly AgentOperation[]): readonly AgentOperation[] {
  const served = new Map(operations.map((operation) => [operation.entry.name, operation.entry]));
  const missing = Object.keys(catalogue).filter((name) => !served.has(name));
  const foreign = operations.filter(({ entry }) => catalogue[entry.name] !== entry).map(({ entry }) => entry.name);
  if (missing.length > 0 || foreign.length > 0) {
    throw new Error(`The agent operations do not serve the catalogue: ${missing.length > 0 ? `missing ${missing.join(', ')}` : ''}${missing.length > 0 && foreign.length > 0 ? '; ' : ''}${foreign.length > 0 ? `not its entries ${foreign.join(', ')}` : ''}.`);
  }
  return operations;
}
