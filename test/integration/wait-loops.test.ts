import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** This file, whose own examples of a hand-written wait are not one. */
const SELF = fileURLToPath(import.meta.url);
/** Where tests and their helpers live. */
const TEST_DIRS = ['test', 'runtime/test', 'gateway/test', 'simulator/test', 'client/test', 'sdk/test', ...readdirSync(join(ROOT, 'drivers')).map((d) => `drivers/${d}/test`)];
/** Not tests: benchmarks (test/bench/, *.bench.ts) run for a fixed time and measure how fast, which is their point. */
const SKIPPED = new Set(['node_modules', 'bench']);
const BENCHMARK = /\.bench\.ts$/;

/**
 * A wait written by hand: a loop whose condition reads the clock, a clock compared with a deadline, or
 * a loop that only sleeps until its condition holds (and waits without end when it never does). Tests wait with `eventually` (or hold with `steadily`) from
 * `@switchboard/runtime/testing`, which say what was awaited and what was seen when time runs out.
 */
const PATTERNS = [
  /\b(?:while|for)\s*\(.*\b(?:Date|performance)\.now\(\)/,
  /\b(?:Date|performance)\.now\(\)\s*[<>]=?\s*(?:deadline|end|until)\b/,
  /\b(?:deadline|end|until)\s*[<>]=?\s*(?:Date|performance)\.now\(\)/,
  /\bwhile\s*\(.*\)\s*await\s+(?:new Promise|sleep|delay)\b/,
];

/** Clock loops that are not waits, each with why it stays. */
const ALLOWED: Record<string, string> = {
  'test/smoke/smoke.mjs': 'runs on plain node without tsx against a built checkout, so it cannot import the runtime; it has its own small wait',
  'runtime/test/cluster-runtime.test.ts': 'blocks the event loop on purpose for two lease lifetimes, as a vendor SDK loading synchronously does',
};

function files(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    if (SKIPPED.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.(?:ts|mts|mjs|js)$/.test(name) && !BENCHMARK.test(name) ? [path] : [];
  });
}

function waitLoops(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of TEST_DIRS.flatMap((dir) => files(join(ROOT, dir))).filter((f) => f !== SELF)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    const hits = lines.flatMap((line, i) => (PATTERNS.some((p) => p.test(line)) ? [`${i + 1}: ${line.trim()}`] : []));
    if (hits.length > 0) found.set(relative(ROOT, file), hits);
  }
  return found;
}

describe('tests wait with eventually', () => {
  const found = waitLoops();

  it('no test waits in a loop of its own on the clock', () => {
    const unexplained = [...found].filter(([file]) => !(file in ALLOWED)).map(([file, hits]) => `${file}\n  ${hits.join('\n  ')}`);
    assert.deepEqual(unexplained, [], 'wait with eventually (or steadily) from @switchboard/runtime/testing, or add the file to ALLOWED with why it is not a wait');
  });

  it('every allowed clock loop is still there (the list says why each stays, so it stays true)', () => {
    assert.deepEqual(Object.keys(ALLOWED).filter((file) => !found.has(file)), []);
  });

  it('finds a hand-written wait', () => {
    const loop = 'for (const deadline = Date.now() + 5000; !done(); await sleep(20)) assert.ok(Date.now() < deadline);';
    assert.ok(PATTERNS.some((p) => p.test(loop)));
    assert.ok(PATTERNS.some((p) => p.test('    if (Date.now() > deadline) throw new Error(\'timed out\');')));
    assert.ok(PATTERNS.some((p) => p.test('  while (total < count) await new Promise((r) => setTimeout(r, 10));')));
    assert.ok(!PATTERNS.some((p) => p.test('const took = Date.now() - started;')));
  });
});
