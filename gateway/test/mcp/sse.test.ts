import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectSse, pingResult, startMcpHarness, TOKENS, type McpHarness } from './mcp-harness.js';

describe('MCP over HTTP+SSE', () => {
  let harness: McpHarness;
  before(async () => {
    harness = await startMcpHarness();
  });
  after(async () => {
    await harness.close();
  });

  it('lists tools and calls comms_ping', async () => {
    const { client } = await connectSse(harness.url, { token: TOKENS.alice });
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ['comms_ping']);
      const result = await client.callTool({ name: 'comms_ping', arguments: {} });
      assert.deepEqual(pingResult(result), { ok: true, principal: 'client', agentId: 'alice' });
    } finally {
      await client.close();
    }
  });
});
