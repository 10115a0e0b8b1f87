import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { nodeBinary, npmPackage } from '../../scripts/node-runtime.mjs';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** The MCP Inspector the integration guide tells people to try (its CLI mode; it needs Node 22.19 or later). */
const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('the MCP Inspector (CLI mode, under Node 22) against the documented steps', () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let home: string;
  let inspect: (...args: string[]) => Promise<Run>;

  before(async () => {
    const node22 = nodeBinary('22');
    const launcher = join(npmPackage(INSPECTOR), 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
    // The CLI keeps a catalog under HOME: give it one of its own.
    home = mkdtempSync(join(tmpdir(), 'switchboard-inspector-'));
    inspect = (...args) =>
      new Promise((resolve) => {
        execFile(node22, [launcher, '--cli', ...args], { timeout: 60_000, env: { ...process.env, HOME: home } }, (err, stdout, stderr) => {
          resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
        });
      });
    t = await startTestGateway();
    agent = await provisionAgent(t, 'inspector-agent', ['sms']);
  });
  after(async () => {
    await t?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('Streamable HTTP: lists the tools in the fixed order, with no schema portability problem (--strict)', async () => {
    const run = await inspect(`${t.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${t.teamToken}`, '--method', 'tools/list', '--strict');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr.trim(), '', 'no warning or error about any tool schema');
    const names = (JSON.parse(run.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    assert.equal(names[0], 'comms_send_message');
    assert.equal(names.at(-1), 'comms_ping');
    assert.ok(names.includes('comms_inbox_read'), names.join());
  });

  it('Streamable HTTP: a tool call acts for the agent named in the URL', async () => {
    const run = await inspect(`${t.url}/mcp?agentId=${agent.agentId}`, '--transport', 'http', '--header', `Authorization: Bearer ${t.teamToken}`, '--method', 'tools/call', '--tool-name', 'comms_ping');
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as { structuredContent: { ok: boolean; principal: string; agentId: string } };
    assert.deepEqual([result.structuredContent.ok, result.structuredContent.principal, result.structuredContent.agentId], [true, 'team', agent.agentId]);
  });

  it('HTTP+SSE (deprecated): lists the same tools', async () => {
    const run = await inspect(`${t.url}/sse`, '--transport', 'sse', '--header', `Authorization: Bearer ${agent.securityToken}`, '--method', 'tools/list');
    assert.equal(run.code, 0, run.stderr);
    assert.ok((JSON.parse(run.stdout) as { tools: { name: string }[] }).tools.some((tool) => tool.name === 'comms_send_message'));
  });

  it('a wrong token is refused: the CLI reads the 401 challenge as a call to sign in', async () => {
    const run = await inspect(`${t.url}/mcp`, '--transport', 'http', '--header', 'Authorization: Bearer sb_team_wrong', '--method', 'tools/list', '--stored-auth-only');
    assert.notEqual(run.code, 0);
    assert.match(`${run.stdout}${run.stderr}`, /auth_required|401|unauthori[sz]ed/i);
  });
});
