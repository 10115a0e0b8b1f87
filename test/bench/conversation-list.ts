// CPU of one page of GET /api/v1/conversations (the agent operation behind it) as an agent's
// conversations grow. Usage: npx tsx --conditions=switchboard-source test/bench/conversation-list.ts [conversations] [postgres]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { conversationOperations } from '../../runtime/src/conversations/operations.js';
import { ALWAYS, AgentActor, SYSTEM_CLOCK, createLogger, openStore } from '../../runtime/src/internal.js';
import type { AgentRecord } from '../../runtime/src/store/repositories/agents.js';
import { createTestDatabase } from '../../runtime/src/testing/index.js';
import type { MessageRecord } from '../../runtime/src/store/repositories/messages.js';

const conversations = Number(process.argv[2] ?? 5000);
const database = process.argv[3] === 'postgres' ? await createTestDatabase() : undefined;
const databaseUrl = database?.url;
const PER_CONVERSATION = 3;
const LIMIT = 50;

const dir = mkdtempSync(join(tmpdir(), 'sb-conv-bench-'));
const store = await openStore({ dataDir: dir, synchronous: 'NORMAL', ...(databaseUrl ? { databaseUrl } : {}) });
try {
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  const message = (c: number, n: number): MessageRecord => {
    const at = new Date(t0 + (c * PER_CONVERSATION + n) * 1000).toISOString();
    return {
      id: `msg-${c}-${n}`, agentId: 'bench', channel: 'sms', direction: 'inbound', from: `+1415${String(c).padStart(7, '0')}`, to: '+12025550101', subject: null,
      body: 'hello', html: null, mediaUrls: [], externalId: `SM${c}-${n}`, status: 'received', segments: 1, cost: null, error: null, delivery: 'done', createdAt: at, updatedAt: at,
    };
  };
  const started = performance.now();
  for (let c = 0; c < conversations; c += 200) {
    const batch = [];
    for (let k = c; k < Math.min(c + 200, conversations); k++) for (let n = 0; n < PER_CONVERSATION; n++) batch.push(store.messages.insertInboundStatement(message(k, n)));
    await store.db.executeAll(batch);
  }
  const insertMs = performance.now() - started;
  const list = conversationOperations().find((operation) => operation.entry.name === 'conversations')!;
  const actor = new AgentActor('bench');
  // The operation reads only the agent's id from its record.
  actor.state = { agentId: 'bench' } as unknown as AgentRecord;
  const turn = { actor, store, tenure: ALWAYS, logger: createLogger({ level: 'silent', pretty: false }), clock: SYSTEM_CLOCK };
  const page = async (cursor?: string) =>
    (await list.accept({ agentId: 'bench', limit: LIMIT, ...(cursor ? { cursor } : {}) })(turn)) as { conversations: unknown[]; nextCursor: string | null };
  const cpu = async (work: () => Promise<unknown>) => {
    const before = process.cpuUsage();
    const wall = performance.now();
    await work();
    const used = process.cpuUsage(before);
    return { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - wall };
  };
  await page();
  const runs = 20;
  const first = await cpu(async () => {
    for (let i = 0; i < runs; i++) await page();
  });
  let pages = 0;
  let seen = 0;
  const all = await cpu(async () => {
    let cursor: string | undefined;
    do {
      const result = await page(cursor);
      pages++;
      seen += result.conversations.length;
      cursor = result.nextCursor ?? undefined;
    } while (cursor);
  });
  console.log(
    JSON.stringify({
      backend: databaseUrl ? 'postgres' : 'sqlite', conversations, rows: conversations * PER_CONVERSATION, insertMsPerThousandRows: +(insertMs / (conversations * PER_CONVERSATION / 1000)).toFixed(1),
      firstPageCpuMs: +(first.cpuMs / runs).toFixed(2), firstPageWallMs: +(first.wallMs / runs).toFixed(2),
      pages, seen, cpuMsPerPageThroughAll: +(all.cpuMs / pages).toFixed(2), wallMsPerPageThroughAll: +(all.wallMs / pages).toFixed(2),
    }),
  );
} finally {
  await store.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
}
