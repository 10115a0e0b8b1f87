// scripts/progress-reporter.mjs: `npm test` prints a line as each file ends, with its counts.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import progress from '../../scripts/progress-reporter.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const A = join(ROOT, 'test/a.test.ts');
const B = join(ROOT, 'test/b.test.ts');

const test = (file: string, name: string, passed: boolean, extra: Record<string, unknown> = {}) => ({
  type: 'test:complete',
  data: { file, name, nesting: 1, details: { passed, duration_ms: 1 }, ...extra },
});
const fileEnded = (file: string, passed: boolean, seconds: number) => ({
  type: 'test:complete',
  data: { file, name: file, nesting: 0, details: { passed, duration_ms: seconds * 1000 } },
});

async function lines(events: { type: string; data: unknown }[]): Promise<string[]> {
  async function* source() {
    yield* events as { type: string; data: any }[];
  }
  const out: string[] = [];
  for await (const line of progress(source())) out.push(line.replace(/total \d+:\d\d/, 'total T'));
  return out;
}

describe('the progress reporter', () => {
  it('prints one line per ended file with its counts, also when its tests are reported after it ended', async () => {
    const out = await lines([
      test(A, 'one', true),
      test(A, 'two', true),
      test(A, 'later', true, { skip: true }),
      { type: 'test:complete', data: { file: A, name: 'a suite', nesting: 0, details: { passed: true, type: 'suite', duration_ms: 2 } } },
      fileEnded(A, true, 12.34),
      // B ends before its tests are reported (they wait behind other files): its line waits for them.
      fileEnded(B, false, 3),
      test(A, 'none', true, { file: undefined }),
      test(B, 'fails', false),
      test(B, 'passes', true),
      { type: 'test:diagnostic', data: { message: 'tests 5' } },
    ]);
    assert.deepEqual(out, [
      '✔ test/a.test.ts (2 pass, 0 fail, 1 skipped) in 12.3 s, total T\n',
      '✖ test/b.test.ts (1 pass, 1 fail) in 3.0 s, total T\n',
    ]);
  });
});
