// The floor of a persisted webhook: the least work that keeps ingest's guarantees, with none of
// Switchboard around it. uWebSockets.js reads the body, twilio's validateRequest checks the
// signature, and a group commit in sqlite3 (WAL, synchronous=FULL, Switchboard's own schema) stores
// the message, deduplicated by MessageSid, and its dead letter; only then is the 200 sent.
// Run as a child process with FLOOR_AUTH_TOKEN set. Like Switchboard, it checks the signature
// against its own URL, port included, which validateRequest also tries without the port.
// With FLOOR_INBOX=1 each commit also appends every message's inbox entry with Switchboard's own
// statement (one multi-row INSERT into the inbox's view, as the group commit makes it), so the two
// floors, measured in one run, give what the inbox costs ingest.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InboxRepository, MIGRATIONS, receivedEntry, type SqlExecutor } from '@switchboard/runtime/internal';
import sqlite3 from 'sqlite3';
import twilio from 'twilio';
import uWS from 'uWebSockets.js';

const authToken = process.env.FLOOR_AUTH_TOKEN!;
const ACK = new twilio.twiml.MessagingResponse().toString();
/** Rows per commit at most, as many as the load generator's connections. */
const MAX_BATCH = 256;

interface Pending {
  readonly params: Record<string, string>;
  done(ok: boolean): void;
}

const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-floor-'));
const db = new sqlite3.Database(join(dataDir, 'floor.sqlite'));
const exec = (sql: string) => new Promise<void>((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
const run = (statement: sqlite3.Statement, params: unknown[]) =>
  new Promise<void>((resolve, reject) => statement.run(params, (err) => (err ? reject(err) : resolve())));

await exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
for (const migration of MIGRATIONS) await exec(migration.statements.join(';\n'));

/** One multi-row INSERT per batch size, prepared once. */
function multiRow(head: string, columns: number, tail = ''): (rows: number) => sqlite3.Statement {
  const prepared = new Map<number, sqlite3.Statement>();
  const row = `(${Array.from({ length: columns }, () => '?').join(', ')})`;
  return (rows) => {
    let statement = prepared.get(rows);
    if (!statement) prepared.set(rows, (statement = db.prepare(`${head} VALUES ${Array.from({ length: rows }, () => row).join(', ')} ${tail}`)));
    return statement;
  };
}
const insertMessages = multiRow(
  'INSERT INTO messages (id, agent_id, channel, direction, from_address, to_address, body, external_id, status, delivery, created_at, updated_at)',
  12,
  'ON CONFLICT (agent_id, channel, direction, external_id) DO NOTHING',
);
const insertDeadLetters = multiRow(
  'INSERT INTO dead_letters (id, agent_id, channel, direction, reason, from_address, to_address, body, external_id, created_at, message_id)',
  11,
);
/** The inbox's statement, as Switchboard builds it, made multi-row as its group commit does. */
const inbox = process.env.FLOOR_INBOX === '1' ? new InboxRepository({} as SqlExecutor) : undefined;
let insertEntries: ((rows: number) => sqlite3.Statement) | undefined;
/** The entries' statement with its rows' parameters (after the messages: each entry needs its message stored). */
function appendEntries(messages: readonly Parameters<typeof receivedEntry>[0][]): [sqlite3.Statement, unknown[]] {
  const statements = messages.map((message) => inbox!.appendStatement(receivedEntry(message)));
  const { sql, params } = statements[0]!;
  insertEntries ??= multiRow(sql.slice(0, sql.indexOf('VALUES')), params!.length);
  return [insertEntries(statements.length), statements.flatMap((s) => [...(s.params ?? [])])];
}
const begin = db.prepare('BEGIN');
const commit = db.prepare('COMMIT');

const queue: Pending[] = [];
let committing = false;

async function commitQueued(): Promise<void> {
  committing = true;
  while (queue.length > 0) {
    const batch = queue.splice(0, MAX_BATCH);
    const now = new Date().toISOString();
    const messages: unknown[] = [];
    const letters: unknown[] = [];
    const entries: Parameters<typeof receivedEntry>[0][] = [];
    for (const { params } of batch) {
      const messageId = randomUUID();
      if (inbox) {
        entries.push({
          id: messageId, agentId: 'floor', channel: 'sms', direction: 'inbound', from: params.From!, to: params.To!, subject: null, body: params.Body ?? '', html: null,
          mediaUrls: [], externalId: params.MessageSid!, status: 'received', segments: 1, cost: null, error: null, delivery: 'done', createdAt: now, updatedAt: now,
        });
      }
      messages.push(messageId, 'floor', 'sms', 'inbound', params.From, params.To, params.Body, params.MessageSid, 'received', 'dead', now, now);
      letters.push(randomUUID(), 'floor', 'sms', 'inbound', 'agent_offline', params.From, params.To, params.Body, params.MessageSid, now, messageId);
    }
    let ok = true;
    try {
      await run(begin, []);
      await Promise.all([run(insertMessages(batch.length), messages), run(insertDeadLetters(batch.length), letters)]);
      if (entries.length > 0) await run(...appendEntries(entries));
      await run(commit, []);
    } catch (err) {
      process.stderr.write(`floor commit failed: ${String(err)}\n`);
      await exec('ROLLBACK').catch(() => undefined);
      ok = false;
    }
    for (const pending of batch) pending.done(ok);
  }
  committing = false;
}

let origin = '';
uWS
  .App()
  .post('/webhooks/:agentId/sms', (res, req) => {
    const url = `${origin}${req.getUrl()}`;
    const signature = req.getHeader('x-twilio-signature');
    const chunks: Buffer[] = [];
    let aborted = false;
    res.onAborted(() => (aborted = true));
    const answer = (status: string, body: string) => {
      if (!aborted) res.cork(() => res.writeStatus(status).writeHeader('content-type', 'text/xml').end(body));
    };
    res.onData((chunk, last) => {
      chunks.push(Buffer.from(chunk.slice(0)));
      if (!last) return;
      const params = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      if (!twilio.validateRequest(authToken, signature, url, params)) return answer('403 Forbidden', '');
      queue.push({ params, done: (ok) => (ok ? answer('200 OK', ACK) : answer('500 Internal Server Error', '')) });
      if (!committing) void commitQueued();
    });
  })
  .listen('127.0.0.1', 0, (socket) => {
    if (!socket) {
      process.stderr.write('uWS could not listen\n');
      process.exit(1);
    }
    origin = `http://127.0.0.1:${uWS.us_socket_local_port(socket)}`;
    process.stdout.write(`LISTENING ${origin}\n`);
  });
process.once('SIGTERM', () => {
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
