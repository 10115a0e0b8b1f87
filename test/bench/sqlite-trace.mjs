// Loaded with `--import` into a server the bench starts when BENCH_SQLITE_TRACE=<dir> is set: counts
// the statements this process runs on SQLite, by their first words (and, as `prepare: …`, those it prepares), and writes them to
// <dir>/<pid>.json every second and at exit (the embedded store's counterpart of pg-trace.mjs), with
// the slowest statements (20 ms and over, call to callback) as `slow: …` entries.
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
  // The slowest statements (from the call to its callback: SQLite's thread, fsyncs included), kept as `slow: <ms> ms at <s> s: <sql>`.
  const slow = [];
  const started = performance.now();
  for (const method of ['run', 'all', 'get']) {
    const original = sqlite3.Statement.prototype[method];
    sqlite3.Statement.prototype[method] = function (...args) {
      count(this);
      const callback = args.at(-1);
      if (typeof callback === 'function') {
        const at = performance.now();
        const sql = sqlOf.get(this) ?? '?';
        args[args.length - 1] = function (...results) {
          const ms = performance.now() - at;
          if (ms >= 20) slow.push([ms, (at - started) / 1000, sql]);
          return callback.apply(this, results);
        };
      }
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
  const dump = () => {
    const slowest = slow.sort((a, b) => b[0] - a[0]).slice(0, 40).map(([ms, s, sql]) => [`slow: ${ms.toFixed(0)} ms at ${s.toFixed(1)} s: ${sql}`, 1]);
    writeFileSync(file, JSON.stringify(Object.fromEntries([...[...counts].sort((a, b) => b[1] - a[1]), ...slowest]), null, 1));
  };
  setInterval(dump, 1000).unref();
  process.on('exit', dump);
}
