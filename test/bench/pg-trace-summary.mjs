// `node test/bench/pg-trace-summary.mjs <dir> <from> <to> [units]`: the transactions each server
// ran on PostgreSQL between two snapshots of a BENCH_PG_TRACE run (folders `<dir>/<from>`,
// `<dir>/<to>`; `0` for nothing), by shape, most frequent first, and per unit when given.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, from, to, units] = process.argv.slice(2);
const read = (name) => {
  const folder = join(dir, name);
  const out = {};
  if (name === '0' || !existsSync(folder)) return out;
  for (const file of readdirSync(folder)) out[file.replace(/\.json$/, '')] = JSON.parse(readFileSync(join(folder, file), 'utf8'));
  return out;
};
const before = read(from);
const after = read(to);
const per = units ? Number(units) : 0;
let all = 0;
for (const [server, shapes] of Object.entries(after)) {
  const rows = Object.entries(shapes)
    .map(([shape, n]) => [shape, n - (before[server]?.[shape] ?? 0)])
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((s, [, n]) => s + n, 0);
  all += total;
  console.log(`${server}: ${total} transactions${per ? ` (${(total / per).toFixed(2)} per unit)` : ''}`);
  const line = (n, what) => console.log(`  ${String(n).padStart(7)}${per ? ` ${(n / per).toFixed(2).padStart(6)}` : ''}  ${what}`);
  for (const [shape, n] of rows.filter(([shape]) => !shape.includes('[')).slice(0, 20)) line(n, shape);
  // BEGIN … COMMIT transactions (group commits among them): how many, and the statements they ran by kind.
  const inside = new Map();
  let transactions = 0;
  for (const [shape, n] of rows.filter(([shape]) => shape.includes('['))) {
    transactions += n;
    for (const part of shape.replace(/^.*?\[|\]$/g, '').split(' | ')) {
      const m = /^(\d+)× (.*)$/.exec(part);
      if (m) inside.set(m[2], (inside.get(m[2]) ?? 0) + Number(m[1]) * n);
    }
  }
  if (transactions) {
    line(transactions, 'BEGIN … COMMIT transactions, whose statements were:');
    for (const [statement, n] of [...inside].sort((a, b) => b[1] - a[1])) line(n, `  ${statement}`);
  }
}
console.log(`all: ${all}${per ? ` (${(all / per).toFixed(2)} per unit)` : ''}`);
