import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Small files, one concept each: a hand-written source file past this many lines is split along a seam. */
const MAX_LINES = 400;
/** What counts as source: code, and the admin UI's style sheet. */
const SOURCE = /\.(?:ts|mts|cts|tsx|js|mjs|cjs|jsx|css)$/;
/** Not hand-written source: dependencies, build output, and tests (folders named `test`, files named `*.test.*`). */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'test']);
/** Generated files, each with what writes it. */
const GENERATED: Record<string, string> = {
  'client/src/schema.ts': 'written by openapi-typescript (`npm run generate -w @switchboard/client`) from the OpenAPI document',
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name.startsWith('.') || SKIPPED_DIRS.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return SOURCE.test(name) && !/\.test\.[a-z]+$/.test(name) ? [path] : [];
  });
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('source files stay small', () => {
  const sources = files(ROOT).map((path) => relative(ROOT, path).split(sep).join('/'));

  it(`no hand-written source file is over ${MAX_LINES} lines`, () => {
    const long = sources
      .filter((file) => !(file in GENERATED))
      .map((file) => ({ file, lines: lineCount(readFileSync(join(ROOT, file), 'utf8')) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .sort((a, b) => b.lines - a.lines)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    assert.deepEqual(long, [], `split these along a seam (by concern), to ${MAX_LINES} lines or fewer each`);
  });

  it('looks where the source is, and every generated file it leaves out still exists', () => {
    for (const file of ['runtime/src/messaging/send.ts', 'gateway/src/server.ts', 'admin-ui/src/style.css', 'drivers/twilio/src/index.ts', 'scripts/test.mjs']) {
      assert.ok(sources.includes(file), `${file} was not looked at`);
    }
    assert.ok(!sources.some((file) => file.startsWith('test/') || file.includes('/test/') || file.includes('/dist/')), 'tests and build output are not source');
    assert.deepEqual(Object.keys(GENERATED).filter((file) => !sources.includes(file)), []);
  });

  it('counts lines as wc -l does', () => {
    assert.equal(lineCount(''), 0);
    assert.equal(lineCount('a\n'), 1);
    assert.equal(lineCount('a\nb'), 2);
    assert.equal(lineCount('a\n\nb\n'), 3);
  });
});
