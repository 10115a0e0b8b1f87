#!/usr/bin/env node
// A send's stages from the server's .cpuprofile under `npm run bench -- send` (BENCH_CPU_PROF): each
// sample of the window goes to the first stage below found anywhere on its stack, and the busy share
// of the window, over the send rate, gives µs of the main thread per send by stage.
//   node scripts/cpuprofile-send-stages.mjs <file> <from s> <to s> <sends per second>
// The profile samples the thread whether it runs or waits inside a native call: the stages sum to
// more than its CPU (read /proc/<pid>/task/<pid>/stat for that).
import { readFileSync } from 'node:fs';

const [file, from, to, rate] = process.argv.slice(2);
if (!rate) {
  console.error('usage: node scripts/cpuprofile-send-stages.mjs <file> <from s> <to s> <sends per second>');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map(profile.nodes.flatMap((n) => (n.children ?? []).map((c) => [c, n.id])));
const STAGES = [
  ['the status callbacks: signature, parse, apply', /routes\/webhooks|twilio\/src\/webhooks|twilio\/lib\/webhooks|messaging\/inbound|messaging\/receipts|recent-sends/],
  ['provider call: the twilio SDK and axios', /twilio\/lib|axios|driver-twilio|twilio\/src\/(messaging|client|index)|follow-redirects|form-data|proxy-from-env|p-retry|retry_operation/],
  ['store: SQLite calls and the group commit', /statement-cache|sqlite|group-commit|coalescer|repositories\//],
  ['the send operation: checks, limits, outbox', /messaging\/send|limits\/|usage-ledger|outbox|inbox\/entries|tariffs|work-queue/],
  ['REST in: HTTP, token, validation, the agent call', /uws|request-gate|http\/app|token|validation|ajv|routes\/|agent-client|memory-bus|actor|switching-listener|metrics|prom-client|answers/],
  ['provider call: its socket I/O', /_http_client|_http_agent|node:net|_http_common|_http_outgoing|internal\/streams/],
];
let at = profile.startTime;
let window = 0;
let idle = 0;
const spent = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  at += profile.timeDeltas[i];
  const s = (at - profile.startTime) / 1e6;
  if (s < Number(from) || s > Number(to)) continue;
  const dt = profile.timeDeltas[i];
  window += dt;
  let id = profile.samples[i];
  const leaf = byId.get(id).callFrame.functionName;
  if (leaf === '(idle)') {
    idle += dt;
    continue;
  }
  const stack = [];
  for (; id !== undefined; id = parent.get(id)) stack.push(byId.get(id).callFrame);
  const stage =
    leaf === '(program)' || leaf === '(garbage collector)'
      ? leaf
      : (STAGES.find(([, re]) => stack.some((f) => re.test(f.url) || re.test(f.functionName)))?.[0] ?? 'other');
  spent.set(stage, (spent.get(stage) ?? 0) + dt);
}
const busy = window - idle;
const perSend = ((busy / window) * 1e6) / Number(rate);
console.log(`main thread busy ${((100 * busy) / window).toFixed(0)} % of the window: ${perSend.toFixed(0)} µs per send at ${rate}/s`);
for (const [stage, t] of [...spent].sort((a, b) => b[1] - a[1])) {
  console.log(`${((perSend * t) / busy).toFixed(0).padStart(6)} µs  ${((100 * t) / busy).toFixed(1).padStart(5)} %  ${stage}`);
}
