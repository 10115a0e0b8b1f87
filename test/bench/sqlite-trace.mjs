// Loaded with `--import` into a server the bench starts when BENCH_SQLITE_TRACE=<dir> is set: counts
// the statements this process runs on SQLite, by their first words (and, as `prepare: …`, those it prepares), and writes them to
// <dir>/<pid>.json every second and at exit (the embedded store's counterpart of pg-trace.mjs).
// `node test/bench/sqlite-trace.mjs <file> [units]` prints one, per unit when given.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const short = (text) => text.replace(/\s+/g, ' ').trim().slice(0, 100);
const dir = process.env.BENCH_SQLITE_TRACE;
if (process.argv[1]?.endsWith('sqlite-trace.mjs')) {
  const [file, units] = process.argv.slice(2);
  const per = Number(units ?? 0);
  const counts = Object.entries(JSON.parse(readFileSync(file, 'utf8')));
  console.log(`${counts.reduce((s, [, n]) => s + n, 0)} statements${per ? ` (${(counts.reduce((s, [, n]) => s + n, 0) / per).toFixed(2)} per unit)` : ''}`);
  for (const [sql, n] of counts) console.log(`${String(n).padStart(8)}${per ? ` ${(n / per).toFixed(2).padStart(6)}` : ''}  ${sql}`);
} else if (dir) {
  const require = createRequire(join(process.cwd(), 'runtime', 'package.json'));
  const sqlite3 = require('sqlite3');
  const counts = new Map();
  const sqlOf = new WeakMap();
  const count = (statement) => {
    const sql = sqlOf.get(statement) ?? '?';
    counts.set(sql, (counts.get(sql) ?? 0) + 1);
  };
  const prepare = sqlite3.Database.prototype.prepare;
  sqlite3.Database.prototype.prepare = function (sql, ...rest) {
    const statement = prepare.call(this, sql, ...rest);
    sqlOf.set(statement, short(sql));
    counts.set(`prepare: ${short(sql)}`, (counts.get(`prepare: ${short(sql)}`) ?? 0) + 1);
    return statement;
  };
  for (const method of ['run', 'all', 'get']) {
    const original = sqlite3.Statement.prototype[method];
    sqlite3.Statement.prototype[method] = function (...args) {
      count(this);
      return original.apply(this, args);
    };
  }
  for (const method of ['run', 'all', 'get', 'exec']) {
    const original = sqlite3.Database.prototype[method];
    sqlite3.Database.prototype[method] = function (sql, ...args) {
      if (typeof sql === 'string') counts.set(short(sql), (counts.get(short(sql)) ?? 0) + 1);
      return original.call(this, sql, ...args);
    };
  }
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${process.pid}.json`);
  const dump = () => writeFileSync(file, JSON.stringify(Object.fromEntries([...counts].sort((a, b) => b[1] - a[1])), null, 1));
  setInterval(dump, 1000).unref();
  process.on('exit', dump);
}
