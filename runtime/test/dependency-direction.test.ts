import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * Mechanism folders carry bytes, rows and names; they know nothing of what an agent, a message or a
 * call is. `protocol` is the wire (subjects, streams, buckets), `bus` the request/reply port and its
 * adapters, `store` the database and its repositories.
 */
const MECHANISM = ['protocol', 'bus', 'store'];
/** What they must never import: the folders of the product's domain. */
const DOMAIN = ['actors', 'admin', 'agents', 'audio', 'auth', 'billing', 'cluster', 'delivery', 'drivers', 'limits', 'messaging', 'provisioning', 'voice'];

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

describe('dependency direction in runtime/src', () => {
  it('protocol, bus and store never import a domain folder', () => {
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
