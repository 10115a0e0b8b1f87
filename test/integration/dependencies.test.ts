import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const ROOT = new URL('../../', import.meta.url);
const json = (path: string) => JSON.parse(readFileSync(new URL(path, ROOT), 'utf8'));

interface LockEntry {
  version?: string;
  dev?: boolean;
}
const lock = json('package-lock.json') as { packages: Record<string, LockEntry> };

/** Compares dotted versions numerically (pre-release tags ignored); negative when a < b. */
function compare(a: string, b: string): number {
  const pa = a.split('-')[0]!.split('.').map(Number);
  const pb = b.split('-')[0]!.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

describe('dependency tree', () => {
  it('resolves every ws to 8.17.1 or later (CVE-2024-37890), including the copy uWS pins', () => {
    const copies = Object.entries(lock.packages).filter(([path]) => /(^|\/)node_modules\/ws$/.test(path));
    assert.ok(copies.length > 0, 'ws is in the lock');
    for (const [path, entry] of copies) {
      assert.ok(compare(entry.version!, '8.17.1') >= 0, `${path} is ws@${entry.version}, vulnerable to CVE-2024-37890`);
    }
  });

  it('keeps the test workspace tools out of a production install', () => {
    const pkg = json('test/package.json') as { dependencies?: Record<string, string> };
    assert.deepEqual(Object.keys(pkg.dependencies ?? {}), [], 'test/package.json lists test tools as dependencies');
    for (const tool of ['autocannon', '@modelcontextprotocol/conformance', '@seriousme/openapi-schema-validator']) {
      assert.equal(lock.packages[`node_modules/${tool}`]?.dev, true, `${tool} would be installed by npm ci --omit=dev`);
    }
  });
});
