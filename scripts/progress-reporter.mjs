// A node:test reporter that prints one line per finished test file: its counts, its time and the run's
// elapsed time (`✔ test/x.test.ts (12 pass, 0 fail) in 8.1 s, total 4:05`). The spec reporter reports
// files in their order, so with files run two at a time a slow early file holds back every line after
// it. A file's own test:complete comes as its process ends, in any order; the events of its tests may
// still trail it (Node 20), so its line waits until they have come and another file's event follows.
import { relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const started = Date.now();

const clock = (ms) => {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

export default async function* progress(source) {
  /** Per file: its counts, and once its process ended, what its line says of that. */
  const files = new Map();
  const of = (file) => {
    let f = files.get(file);
    if (!f) files.set(file, (f = { pass: 0, fail: 0, skipped: 0, ended: undefined }));
    return f;
  };
  const line = (file, f) => {
    const skipped = f.skipped > 0 ? `, ${f.skipped} skipped` : '';
    const ok = f.ended.passed && f.fail === 0;
    return `${ok ? '✔' : '✖'} ${relative(root, file)} (${f.pass} pass, ${f.fail} fail${skipped}) in ${(f.ended.durationMs / 1000).toFixed(1)} s, total ${clock(f.ended.at - started)}\n`;
  };
  /** Lines of ended files whose tests have been counted, now that an event of something else came. */
  function* settled(current, all = false) {
    for (const [file, f] of files) {
      if (!f.ended || file === current) continue;
      if (!all && f.pass + f.fail + f.skipped === 0) continue;
      files.delete(file);
      yield line(file, f);
    }
  }
  for await (const { type, data } of source) {
    yield* settled(data?.file);
    if (type !== 'test:complete' || !data.file) continue;
    const f = of(data.file);
    if (data.nesting === 0 && data.name === data.file) {
      f.ended = { passed: data.details.passed, durationMs: data.details.duration_ms, at: Date.now() };
    } else if (data.details?.type !== 'suite') {
      if (data.skip || data.todo) f.skipped++;
      else if (data.details?.passed) f.pass++;
      else f.fail++;
    }
  }
  yield* settled(undefined, true);
}
