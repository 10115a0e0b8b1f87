// Loaded with `--import` into a server the bench starts when BENCH_PG_TRACE=<dir> is set: counts the
// transactions this process runs on PostgreSQL, by shape (the statements in it, in order, each cut
// to its first words), and writes them to <dir>/<NODE_ID or pid>.json every second and at exit.
// A statement outside BEGIN … COMMIT is a transaction of its own. Summarise with
// `node test/bench/pg-trace-summary.mjs <dir>`.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const dir = process.env.BENCH_PG_TRACE;
if (dir) {
  const require = createRequire(join(process.cwd(), 'package.json'));
  const pg = require('pg');
  const shapes = new Map();
  const open = new WeakMap();
  // A multi-row statement (store/postgres/multi-row.ts) is marked with its rows: `INSERT INTO messages … [8 rows]`.
  const rowsOf = (text) => (text.includes(' UNION ALL ') ? text.split(' UNION ALL ').length : /\bVALUES\s*\(/i.test(text) ? text.split(/\)\s*,\s*\(/).length : 1);
  const short = (text) => {
    const rows = rowsOf(text);
    return `${text.replace(/\s+/g, ' ').trim().slice(0, rows > 1 ? 30 : 90)}${rows > 1 ? ` [${rows} rows]` : ''}`;
  };
  // A transaction's statements, alike ones counted together (a group commit holds many): `2× INSERT INTO messages … | 1× …`.
  const group = (statements) => {
    const counts = new Map();
    for (const s of statements) {
      const key = s.includes(' rows]') ? s : s.slice(0, 40);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts].map(([s, n]) => `${n}× ${s}`).join(' | ');
  };
  const add = (shape) => shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, values, callback) {
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string') {
      const head = text.trim().toUpperCase();
      if (head === 'BEGIN') open.set(this, []);
      else if (head === 'COMMIT' || head === 'ROLLBACK') {
        add(`${head === 'ROLLBACK' ? 'ROLLBACK ' : ''}[${group(open.get(this) ?? [])}]`);
        open.delete(this);
      } else if (open.has(this)) open.get(this).push(short(text));
      else add(short(text));
    }
    return original.call(this, config, values, callback);
  };
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${process.env.NODE_ID ?? process.pid}.json`);
  const dump = () => writeFileSync(file, JSON.stringify(Object.fromEntries([...shapes].sort((a, b) => b[1] - a[1])), null, 1));
  setInterval(dump, 1000).unref();
  process.on('exit', dump);
}
