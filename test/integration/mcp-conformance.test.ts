import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** The protocol scenarios of the official MCP conformance suite that a tools-and-logging server must pass. */
const SCENARIOS = ['server-initialize', 'ping', 'logging-set-level', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'];

const CLI = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');

interface Check {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  readonly errorMessage?: string;
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

/** Runs one scenario with the suite's CLI and returns its checks and exit code. */
function runScenario(url: string, scenario: string): Promise<{ checks: Check[]; code: number; output: string }> {
  const outputDir = mkdtempSync(join(tmpdir(), 'switchboard-conformance-'));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, 'server', '--url', url, '--scenario', scenario, '-o', outputDir], { timeout: 60_000 }, (err, stdout, stderr) => {
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

describe('MCP conformance suite (@modelcontextprotocol/conformance) against /mcp', () => {
  let t: TestGateway;
  let proxy: Server;
  before(async () => {
    t = await startTestGateway();
    proxy = await credentialProxy(new URL(t.url), t.teamToken);
  });
  after(async () => {
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
    await t?.close();
  });

  for (const scenario of SCENARIOS) {
    it(`passes ${scenario}`, async () => {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
      const { checks, code, output } = await runScenario(url, scenario);
      const failed = checks.filter((check) => check.status === 'FAILURE');
      assert.deepEqual(
        failed.map((check) => `${check.id}: ${check.errorMessage ?? ''}`),
        [],
        `${scenario} failed:\n${output}`,
      );
      assert.ok(checks.some((check) => check.status === 'SUCCESS'), `${scenario} made no passing check:\n${output}`);
      assert.equal(code, 0, output);
    });
  }
});
