import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * Mechanism folders carry bytes, rows and names; they know nothing of what an agent, a message or a
 * call is. `protocol` is the wire (subjects, streams, buckets, the operation catalogue), `bus` the
 * request/reply port and its adapters, `store` the database and its repositories, `work` the durable
 * work queue, `cluster` partitions, their leases and the NATS connection.
 */
const MECHANISM = ['protocol', 'bus', 'store', 'work', 'cluster'];
/** What they must never import: the folders of the product's domain. */
const DOMAIN = ['actors', 'admin', 'agents', 'audio', 'auth', 'billing', 'delivery', 'drivers', 'limits', 'messaging', 'outbox', 'provisioning', 'voice'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports, type-only ones and `import()` included, as the compiler reads them. */
function specifiers(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) found.push(node.arguments[0].text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) found.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The top folder of runtime/src a relative specifier lands in, or undefined for a package or a file at the top. */
function topFolder(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = relative(SRC, resolve(dirname(file), specifier));
  const parts = target.split(sep);
  return parts.length > 1 ? parts[0] : undefined;
}

/** Which top folders of runtime/src each top folder imports (files at the top left out), with one file that does, for the message. */
function folderImports(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const file of files(SRC)) {
    const parts = relative(SRC, file).split(sep);
    if (parts.length < 2) continue;
    const from = parts[0]!;
    for (const specifier of specifiers(file)) {
      const to = topFolder(file, specifier);
      if (!to || to === from) continue;
      const out = edges.get(from) ?? new Map<string, string>();
      if (!out.has(to)) out.set(to, `${relative(SRC, file)} imports ${specifier}`);
      edges.set(from, out);
    }
  }
  return edges;
}

/** One import cycle between folders per folder it starts from, as `a -> b -> a` with the imports that make it; none when the folders form a layering. */
function folderCycles(edges: Map<string, Map<string, string>>): string[] {
  const cycles = new Set<string>();
  const done = new Set<string>();
  const visit = (folder: string, path: string[]) => {
    const at = path.indexOf(folder);
    if (at >= 0) {
      const cycle = [...path.slice(at), folder];
      const first = cycle.slice(0, -1).sort()[0]!;
      const start = cycle.indexOf(first);
      const rotated = [...cycle.slice(start, -1), ...cycle.slice(0, start), first];
      cycles.add(rotated.map((f, i) => (i === 0 ? f : `-> ${f} (${edges.get(rotated[i - 1]!)!.get(f)})`)).join(' '));
      return;
    }
    if (done.has(folder)) return;
    for (const next of edges.get(folder)?.keys() ?? []) visit(next, [...path, folder]);
    done.add(folder);
  };
  for (const folder of [...edges.keys()].sort()) visit(folder, []);
  return [...cycles].sort();
}

describe('dependency direction in runtime/src', () => {
  it('no folder imports another that imports it back, directly or through others', () => {
    const edges = folderImports();
    assert.ok(edges.size > 10, `only ${edges.size} folders import others: is the scan broken?`);
    assert.deepEqual(folderCycles(edges), []);
  });

  it('the cycle check finds a cycle through several folders', () => {
    const edges = new Map([
      ['a', new Map([['b', 'a/x.ts imports ../b/y.js']])],
      ['b', new Map([['c', 'b/y.ts imports ../c/z.js']])],
      ['c', new Map([['a', 'c/z.ts imports ../a/x.js']])],
      ['d', new Map([['a', 'd/w.ts imports ../a/x.js']])],
    ]);
    assert.deepEqual(folderCycles(edges), ['a -> b (a/x.ts imports ../b/y.js) -> c (b/y.ts imports ../c/z.js) -> a (c/z.ts imports ../a/x.js)']);
  });

  it('protocol, bus, store, work and cluster never import a domain folder', () => {
    const wrong: string[] = [];
    let scanned = 0;
    for (const folder of MECHANISM) {
      for (const file of files(join(SRC, folder))) {
        scanned++;
        for (const specifier of specifiers(file)) {
          const top = topFolder(file, specifier);
          if (top && DOMAIN.includes(top)) wrong.push(`${relative(SRC, file)} imports ${specifier}`);
        }
      }
    }
    assert.ok(scanned > 10, `only ${scanned} files scanned: is the folder list out of date?`);
    assert.deepEqual(wrong, []);
  });

  it('protocol imports nothing of the runtime outside itself (packages only: the sdk, the schema library)', () => {
    const imports = files(join(SRC, 'protocol')).flatMap((file) =>
      specifiers(file)
        .filter((s) => s.startsWith('.') && topFolder(file, s) !== 'protocol')
        .map((s) => `${relative(SRC, file)} imports ${s}`),
    );
    assert.deepEqual(imports, []);
  });

  it('the scan sees every kind of import (a domain import planted in a fixture is found)', () => {
    const fixture = join(SRC, 'store', 'fixture.ts');
    const found = ["import type { Limits } from '../limits/limits.js';", "export { x } from '../agents/x.js';", "const m = await import('../voice/v.js');", "type T = import('../auth/a.js').T;"].map(
      (line) => specifiers(fixture, line).map((s) => topFolder(fixture, s)),
    );
    assert.deepEqual(found, [['limits'], ['agents'], ['voice'], ['auth']]);
  });
});
