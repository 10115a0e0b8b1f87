#!/usr/bin/env node
// Sums a V8 heap snapshot's self sizes by node type and name (constructor; trailing digits become N,
// so ajv's validate123 and validate124 count together), largest first:
//   node scripts/heapsnapshot-top.mjs <file> [rows]
// With two snapshots and the number of sessions (or other units) opened between them, it prints
// the difference per unit instead, which is what one unit holds:
//   node scripts/heapsnapshot-top.mjs <before> <after> <units> [rows]
import { readFileSync } from 'node:fs';

/** Self size and count by "type name" of one snapshot. */
function summarise(file) {
  const snapshot = JSON.parse(readFileSync(file, 'utf8'));
  const { node_fields: fields, node_types: [types] } = snapshot.snapshot.meta;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const { nodes, strings } = snapshot;
  const byKey = new Map();
  let total = 0;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt]];
    // Strings and code are grouped by type alone: their names are their contents.
    const name = ['string', 'concatenated string', 'sliced string', 'number', 'code', 'regexp'].includes(type) ? '' : strings[nodes[i + nameAt]].slice(0, 80).replace(/\d+$/, 'N');
    const key = `${type} ${name}`;
    const size = nodes[i + sizeAt];
    const entry = byKey.get(key) ?? { size: 0, count: 0 };
    entry.size += size;
    entry.count += 1;
    byKey.set(key, entry);
    total += size;
  }
  return { byKey, total, nodes: nodes.length / width };
}

const args = process.argv.slice(2);
if (args.length === 0 || args.length > 4) {
  console.error('usage: heapsnapshot-top.mjs <file> [rows] | <before> <after> <units> [rows]');
  process.exit(2);
}
const kib = (n) => (n / 1024).toFixed(1);
if (args.length <= 2) {
  const rows = Number(args[1] ?? 40);
  const { byKey, total, nodes } = summarise(args[0]);
  console.log(`${kib(total)} KiB in ${nodes} nodes`);
  for (const [key, { size, count }] of [...byKey].sort((a, b) => b[1].size - a[1].size).slice(0, rows)) {
    console.log(`${kib(size).padStart(10)} KiB ${String(count).padStart(9)}  ${key}`);
  }
} else {
  const units = Number(args[2]);
  const rows = Number(args[3] ?? 40);
  const before = summarise(args[0]);
  const after = summarise(args[1]);
  console.log(`self size per unit: ${((after.total - before.total) / units).toFixed(0)} B over ${units} units (${kib(before.total)} → ${kib(after.total)} KiB)`);
  const keys = new Set([...before.byKey.keys(), ...after.byKey.keys()]);
  const diffs = [...keys].map((key) => {
    const a = before.byKey.get(key) ?? { size: 0, count: 0 };
    const b = after.byKey.get(key) ?? { size: 0, count: 0 };
    return { key, size: (b.size - a.size) / units, count: (b.count - a.count) / units };
  });
  console.log('   B/unit  objects/unit  type name');
  for (const { key, size, count } of diffs.sort((x, y) => Math.abs(y.size) - Math.abs(x.size)).slice(0, rows)) {
    console.log(`${size.toFixed(0).padStart(9)} ${count.toFixed(2).padStart(13)}  ${key}`);
  }
}
