// The store's writer thread: owns the writing connection and its group commits, so that the
// hand-offs to SQLite's threads are answered by this thread's event loop, not queued behind the
// main thread's request handling.
import { parentPort, workerData } from 'node:worker_threads';
import type { SqlExecutor } from './database.js';
import { openWriterConnection, SqliteWriter } from './sqlite-writer.js';
import { batcher, revive, toWireError, type WriterReply, type WriterRequest } from './writer-protocol.js';

const port = parentPort!;
const { filename, synchronous } = workerData as { filename: string; synchronous: 'FULL' | 'NORMAL' };

/** A transaction the main thread holds open: its executor, and how to end it. */
interface OpenTransaction {
  readonly tx: SqlExecutor;
  end(commit: boolean, id: number): void;
}

/** Asked to roll back: thrown inside the transaction so that it rolls back, and not reported. */
const ROLLBACK = Symbol('rollback');

const reply = batcher<WriterReply>((replies) => port.postMessage(replies));
const answer = (id: number, work: Promise<unknown>) =>
  work.then(
    (value) => reply({ id, ok: true, value }),
    (err: unknown) => reply({ id, ok: false, error: toWireError(err) }),
  );

try {
  const writer = new SqliteWriter(await openWriterConnection(filename, synchronous));
  const transactions = new Map<number, OpenTransaction>();

  const begin = (id: number, txId: number) => {
    let ended: { commit: boolean; id: number } | undefined;
    let begun = false;
    const done = writer.transaction(
      (tx) =>
        new Promise<void>((resolve, reject) => {
          begun = true;
          transactions.set(txId, {
            tx,
            end: (commit, endId) => {
              ended = { commit, id: endId };
              if (commit) resolve();
              else reject(ROLLBACK);
            },
          });
          reply({ id, ok: true, value: null });
        }),
    );
    done.then(
      () => ended && reply({ id: ended.id, ok: true, value: null }),
      (err: unknown) => {
        if (!begun) reply({ id, ok: false, error: toWireError(err) });
        else if (ended) reply(err === ROLLBACK ? { id: ended.id, ok: true, value: null } : { id: ended.id, ok: false, error: toWireError(err) });
      },
    ).finally(() => transactions.delete(txId));
  };

  port.on('message', (requests: WriterRequest[]) => {
    for (const request of requests) {
      switch (request.kind) {
        case 'write':
          void answer(request.id, writer.executeAll(revive(request.statements)));
          break;
        case 'begin':
          begin(request.id, request.tx);
          break;
        case 'statement': {
          const open = transactions.get(request.tx);
          if (!open) void answer(request.id, Promise.reject(new Error(`No open transaction ${request.tx}.`)));
          else if (request.op === 'run') void answer(request.id, open.tx.execute(request.sql, revive(request.params)));
          else void answer(request.id, open.tx.query(request.sql, revive(request.params)));
          break;
        }
        case 'end':
          transactions.get(request.tx)?.end(request.commit, request.id);
          break;
        case 'close':
          // Replies after the connection is closed; the thread then ends by itself (no listeners left).
          void writer.close().then(
            () => {
              port.postMessage([{ id: request.id, ok: true, value: null } satisfies WriterReply]);
              port.close();
            },
            (err: unknown) => reply({ id: request.id, ok: false, error: toWireError(err) }),
          );
          break;
      }
    }
  });
  port.postMessage('ready');
} catch (err) {
  port.postMessage({ failed: toWireError(err) });
}
