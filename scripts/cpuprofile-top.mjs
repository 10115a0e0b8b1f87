#!/usr/bin/env node
// Prints the functions with the most self time in a .cpuprofile (from node --cpu-prof).
import { readFileSync } from 'node:fs';
const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const total = profile.samples.length;
const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
for (const id of profile.samples) {
  const n = byNode.get(id);
  const f = n.callFrame;
  const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-3).join('/')}:${f.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + 1);
}
const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 30));
for (const [key, n] of top) console.log(`${((100 * n) / total).toFixed(1).padStart(5)}%  ${key}`);
