import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Source folders whose processes talk over NATS; runtime/src/protocol is the one place allowed to name a subject. */
const SOURCES = ['runtime/src', 'gateway/src'];
const PROTOCOL = join(ROOT, 'runtime/src/protocol');

/** A subject literal: `sb.…` (our subjects) or `_INBOX…` (the roles' reply inboxes). */
const SUBJECT_TEXT = /^(sb\.|_INBOX)/;
/** A subject constant of protocol/ (`AGENT_SUBJECT`, `WORK_SUBJECT_PREFIX`…), which only protocol's builders should read. */
const SUBJECT_CONSTANT = /_SUBJECT(_PREFIX)?$/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return path === PROTOCOL ? [] : files(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Where a file builds a subject itself: a string or template piece starting with a subject's text, or a
 * subject constant read in an expression (importing or re-exporting one by name is not building one).
 */
function subjectsBuilt(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what}`);
  const visit = (node: ts.Node) => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)) && SUBJECT_TEXT.test(node.text)) at(node, node.text);
    else if (ts.isIdentifier(node) && SUBJECT_CONSTANT.test(node.text) && !ts.isImportSpecifier(node.parent) && !ts.isExportSpecifier(node.parent)) at(node, node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('subjects are built only in runtime/src/protocol', () => {
  it('no source file outside protocol/ spells a subject or reads a subject constant', () => {
    const scanned = SOURCES.flatMap((dir) => files(join(ROOT, dir)));
    assert.ok(scanned.length > 100, `only ${scanned.length} files scanned: is the folder list out of date?`);
    const built = scanned.flatMap((file) => subjectsBuilt(file).map((hit) => relative(ROOT, hit)));
    assert.deepEqual(built, [], 'build these with a function of runtime/src/protocol/index.ts');
  });

  it('the scan finds every way of spelling one (planted lines are found, imports and look-alikes are not)', () => {
    const hits = (line: string) => subjectsBuilt('fixture.ts', line).length;
    assert.equal(hits("bus.subscribe('sb.agent.*.*', handler);"), 1);
    assert.equal(hits('bus.publish(`sb.events.${name}`, payload);'), 1);
    assert.equal(hits('connect({ inboxPrefix: `_INBOX_${role}` });'), 1);
    assert.equal(hits('bus.subscribe(`${INBOX_SUBJECT}.*`, handler);'), 1);
    assert.equal(hits('const p = options.prefix ?? WORK_SUBJECT_PREFIX;'), 1);
    assert.equal(hits("import { AGENT_SUBJECT } from '../protocol/index.js'; export { AGENT_SUBJECT };"), 0);
    assert.equal(hits("const token = newToken('sb_live'); log('a sb.agent subject');"), 0);
  });
});
