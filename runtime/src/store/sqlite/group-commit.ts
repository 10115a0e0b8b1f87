import type { ExecuteResult, SqlStatement } from '../database.js';
import { insertShape, runInserts, type InsertShape } from './insert-coalescer.js';
import type { StatementCache } from './statement-cache.js';
import { runUpdates, updateShape, type UpdateShape } from './update-coalescer.js';
import { runEach, runGroup, type Outcome, type PendingWrite } from './writes.js';

/** A statement several writes can share: an INSERT of rows, or an UPDATE of rows picked by key. */
type Shape = { readonly insert: InsertShape } | { readonly update: UpdateShape };
const kinds = new Map<string, Shape | null>();

function shapeOf(sql: string): Shape | null {
  let kind = kinds.get(sql);
  if (kind === undefined) {
    const insert = insertShape(sql);
    const update = insert ? null : updateShape(sql);
    kind = insert ? { insert } : update ? { update } : null;
    kinds.set(sql, kind);
  }
  return kind;
}

/** Runs writes of one shape as multi-row statements (see `runInserts`, `runUpdates`). */
function runAlike(statements: StatementCache, shape: Shape, writes: readonly PendingWrite[], outcomes: Map<PendingWrite, Outcome>): Promise<boolean> {
  return 'insert' in shape ? runInserts(statements, shape.insert, writes, outcomes) : runUpdates(statements, shape.update, writes, outcomes);
}

/** A group's statement texts, when every statement of it can be coalesced: the key groups alike share; else null. */
function coalescibleSteps(group: PendingWrite): string | null {
  for (const statement of group.statements) if (!shapeOf(statement.sql)) return null;
  return group.statements.map((s) => s.sql).join('\0');
}

/**
 * Group commit: writes that arrive while the writer is busy are committed together in one
 * transaction (one fsync), each still resolving only after that commit. A failing statement fails
 * alone; SQLite rolls back just that statement. `schedule` gives the flush its turn on the writer.
 */
export class GroupCommit {
  #batch: PendingWrite[] = [];

  constructor(
    private readonly statements: StatementCache,
    private readonly schedule: (flush: () => Promise<void>) => void,
  ) {}

  /** Writes queued and not yet flushed. */
  get pending(): number {
    return this.#batch.length;
  }

  submit(statements: readonly SqlStatement[]): Promise<ExecuteResult[]> {
    return new Promise<ExecuteResult[]>((resolve, reject) => {
      this.#batch.push({ statements, resolve, reject });
      if (this.#batch.length === 1) this.schedule(() => this.#flush());
    });
  }

  /**
   * Commits everything queued since the last flush in one transaction. Writes that share a flush
   * were issued concurrently (none waited for another's commit), so they are applied as a batch, not
   * in arrival order. The fast path hands them to SQLite together; if a statement of an atomic group
   * fails there, the transaction is rolled back and the batch is applied again one write at a time,
   * each group inside a savepoint, so that the group fails alone and all of it.
   */
  async #flush(): Promise<void> {
    const batch = this.#batch;
    this.#batch = [];
    const wrap = batch.length > 1 || batch[0]!.statements.length > 1;
    let outcomes: Map<PendingWrite, Outcome> | undefined;
    try {
      if (wrap) await this.statements.run('BEGIN IMMEDIATE');
      outcomes = await this.#applyTogether(batch);
      if (!outcomes) {
        await this.statements.run('ROLLBACK');
        await this.statements.run('BEGIN IMMEDIATE');
        outcomes = await this.#applyOneByOne(batch);
      }
      if (wrap) await this.statements.run('COMMIT');
    } catch (err) {
      if (wrap) await this.statements.run('ROLLBACK').catch(() => undefined);
      for (const write of batch) write.reject(err);
      return;
    }
    for (const write of batch) {
      const outcome = outcomes.get(write)!;
      if (outcome.ok) write.resolve(outcome.results);
      else write.reject(outcome.err);
    }
  }

  /**
   * The fast path. Same-shaped single INSERTs, and UPDATEs of rows picked by key, become multi-row
   * statements (see `runInserts`, `runUpdates`), and so do atomic groups made of the same such
   * statements; other single statements and groups (each group's statements in order) run side by
   * side. Resolves undefined when a group's statement failed, or a multi-row statement could not
   * tell which of its rows it wrote: the caller must undo the transaction and replay it one write at
   * a time.
   */
  async #applyTogether(batch: readonly PendingWrite[]): Promise<Map<PendingWrite, Outcome> | undefined> {
    const outcomes = new Map<PendingWrite, Outcome>();
    const alike = new Map<Shape, PendingWrite[]>();
    const singles: PendingWrite[] = [];
    const groups: PendingWrite[] = [];
    const alikeGroups = new Map<string, PendingWrite[]>();
    for (const write of batch) {
      if (write.statements.length !== 1) {
        const steps = coalescibleSteps(write);
        if (steps) alikeGroups.set(steps, [...(alikeGroups.get(steps) ?? []), write]);
        else groups.push(write);
        continue;
      }
      const shape = shapeOf(write.statements[0]!.sql);
      if (!shape) singles.push(write);
      else if (alike.has(shape)) alike.get(shape)!.push(write);
      else alike.set(shape, [write]);
    }
    const coalescedGroups: PendingWrite[][] = [];
    for (const same of alikeGroups.values()) {
      if (same.length === 1) groups.push(same[0]!);
      else coalescedGroups.push(same);
    }
    const coalesced: [Shape, PendingWrite[]][] = [];
    for (const [shape, writes] of alike) {
      if (writes.length === 1) singles.push(writes[0]!);
      else coalesced.push([shape, writes]);
    }
    let replay = false;
    await Promise.all([
      ...coalesced.map(async ([shape, writes]) => {
        if (!(await runAlike(this.statements, shape, writes, outcomes))) replay = true;
      }),
      runEach(this.statements, singles, outcomes),
      ...coalescedGroups.map(async (same) => {
        if (!(await this.#runAlikeGroups(same, outcomes))) replay = true;
      }),
      ...groups.map(async (group) => {
        const results: ExecuteResult[] = [];
        for (const statement of group.statements) {
          if (replay) return;
          try {
            results.push(await this.statements.run(statement.sql, statement.params));
          } catch {
            replay = true;
            return;
          }
        }
        outcomes.set(group, { ok: true, results });
      }),
    ]);
    return replay ? undefined : outcomes;
  }

  /**
   * Atomic groups made of the same statements in the same order (a send's message and usage rows,
   * or its result and settled usage), run step by step: each step's rows as multi-row statements
   * (INSERT or UPDATE), the steps in the groups' order. False when a row failed or could not be told
   * apart: the caller replays the batch one write at a time, where each group is kept or undone whole.
   */
  async #runAlikeGroups(same: readonly PendingWrite[], outcomes: Map<PendingWrite, Outcome>): Promise<boolean> {
    const results = same.map((): ExecuteResult[] => []);
    for (let step = 0; step < same[0]!.statements.length; step++) {
      const rows = new Map<PendingWrite, Outcome>();
      const writes = same.map((group): PendingWrite => ({ statements: [group.statements[step]!], resolve: () => undefined, reject: () => undefined }));
      if (!(await runAlike(this.statements, shapeOf(writes[0]!.statements[0]!.sql)!, writes, rows))) return false;
      for (const [i, write] of writes.entries()) {
        const outcome = rows.get(write);
        if (!outcome?.ok) return false;
        results[i]!.push(outcome.results[0]!);
      }
    }
    for (const [i, group] of same.entries()) outcomes.set(group, { ok: true, results: results[i]! });
    return true;
  }

  /** The careful path: one write after another, each group in a savepoint of its own. */
  async #applyOneByOne(batch: readonly PendingWrite[]): Promise<Map<PendingWrite, Outcome>> {
    const outcomes = new Map<PendingWrite, Outcome>();
    for (const write of batch) {
      if (write.statements.length === 1) await runEach(this.statements, [write], outcomes);
      else outcomes.set(write, await runGroup(this.statements, write.statements));
    }
    return outcomes;
  }
}
