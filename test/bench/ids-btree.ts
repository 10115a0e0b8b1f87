// Insert CPU for random against time-ordered primary keys, through the real store (schema, group
// commit, insert coalescer). Usage:
//   node --conditions=switchboard-source --import tsx test/bench/ids-btree.ts [rows] [batch] [FULL|NORMAL]
import { randomFillSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId, openStore, type MessageRecord } from '@switchboard/runtime/internal';

const rows = Number(process.argv[2] ?? 100_000);
const batch = Number(process.argv[3] ?? 125);
const synchronous = process.argv[4] === 'NORMAL' ? 'NORMAL' : 'FULL';

/** The ids used before: 120 random bits, base64url. */
function randomId(prefix: string): string {
  return `${prefix}_${randomFillSync(Buffer.alloc(15)).toString('base64url')}`;
}

async function run(name: string, id: (prefix: string) => string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-ids-'));
  const store = await openStore({ dataDir: dir, synchronous });
  const now = new Date().toISOString();
  const message = (i: number): MessageRecord => ({
    id: id('msg'), agentId: `agent-${i % 50}`, channel: 'sms', direction: 'inbound', from: '+14155550100', to: '+12025550101', subject: null,
    body: 'hello there', html: null, mediaUrls: [], externalId: `SM${i}`, status: 'received', segments: 1, cost: null, error: null, delivery: 'done',
    createdAt: now, updatedAt: now,
  });
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let done = 0; done < rows; done += batch) {
    await Promise.all(Array.from({ length: Math.min(batch, rows - done) }, (_, k) => store.messages.insert(message(done + k))));
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  const commits = Math.ceil(rows / batch);
  console.log(
    `${name.padEnd(12)} ${synchronous} ${rows} rows in ${commits} commits of ${batch}: ${seconds.toFixed(2)} s, ${(commits / seconds).toFixed(0)} commits/s, ` +
      `CPU ${(cpuMs / 1000).toFixed(2)} s = ${((cpuMs * 1000) / rows).toFixed(1)} µs/row`,
  );
}

await run('random', randomId);
await run('time-ordered', newId);
await run('random', randomId);
await run('time-ordered', newId);
