#!/usr/bin/env node
// Summarises a .cpuprofile (from node --cpu-prof): how busy the thread was each second, then the
// functions with the most self time.
//   node scripts/cpuprofile-top.mjs <file> [count] [--from <s>] [--to <s>] [--total]
// --total ranks by inclusive time (the function or anything it called) instead of self time.
// --from/--to restrict the function table to that window (seconds since the profile started), e.g.
// to the seconds under load, leaving start-up and shut-down out.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { from: { type: 'string' }, to: { type: 'string' }, total: { type: 'boolean' } } });
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));
const count = Number(positionals[1] ?? 30);
const from = Number(values.from ?? 0) * 1e6;
const to = values.to === undefined ? Infinity : Number(values.to) * 1e6;
const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
const isIdle = (n) => n.callFrame.functionName === '(idle)';
const parent = new Map(profile.nodes.flatMap((n) => (n.children ?? []).map((c) => [c, n])));
const keyOf = (f) => `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-3).join('/')}:${f.lineNumber + 1}`;
/** The keys a sample counts for: its own function, or with --total every function on its stack. */
const keysOf = (n) => {
  if (!values.total) return [keyOf(n.callFrame)];
  const keys = new Set();
  for (let at = n; at; at = parent.get(at.id)) keys.add(keyOf(at.callFrame));
  return keys;
};

const seconds = [];
const self = new Map();
let elapsed = 0;
let total = 0;
profile.samples.forEach((id, i) => {
  elapsed += profile.timeDeltas[i];
  const n = byNode.get(id);
  const second = (seconds[Math.floor(elapsed / 1e6)] ??= { busy: 0, all: 0 });
  second.all += 1;
  if (!isIdle(n)) second.busy += 1;
  if (elapsed < from || elapsed > to) return;
  total += 1;
  for (const key of keysOf(n)) self.set(key, (self.get(key) ?? 0) + 1);
});
console.log(`busy per second: ${seconds.map((s) => (s ? `${Math.round((100 * s.busy) / s.all)}%` : '-')).join(' ')}`);
const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, count);
for (const [key, n] of top) console.log(`${((100 * n) / total).toFixed(1).padStart(5)}%  ${key}`);
