import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { connectMcp } from '../helpers/mcp-client.js';

/** How long each agent is away: the figure. */
const AWAY_MS = 60_000;
const REVISION = '2026-07-28';

interface Page {
  entries: { cursor: number; type: string; payload: { body?: string } }[];
  nextCursor: number;
  hasMore: boolean;
}

describe('an agent away for 60 s comes back on a new MCP connection and misses nothing (2025 and 2026 clients)', { timeout: 4 * 60_000 }, () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway();
  });
  after(() => t.close());

  /** Texts the agent `count` messages, spread over the time it is away; returns their bodies. */
  const textWhileAway = async (agent: Awaited<ReturnType<typeof provisionAgent>>, count: number): Promise<string[]> => {
    const bodies: string[] = [];
    for (let i = 0; i < count; i++) {
      await new Promise((r) => setTimeout(r, AWAY_MS / count));
      const body = `while away ${i}`;
      const sent = await t.sim.inbound.sms({ agentId: agent.agentId, from: '+14155550171', to: agent.channels.sms!.address, body });
      assert.equal(sent.status, 200);
      bodies.push(body);
    }
    return bodies;
  };
  const bodiesOf = (page: Page) => page.entries.filter((e) => e.type === 'message.received').map((e) => e.payload.body);

  it('both eras at once: read and acknowledge, go away, texts arrive, come back on a new connection, read from the acknowledged cursor', async () => {
    const legacyAgent = await provisionAgent(t, 'away-2025', ['sms']);
    const modernAgent = await provisionAgent(t, 'away-2026', ['sms']);
    for (const agent of [legacyAgent, modernAgent]) {
      assert.equal((await t.sim.inbound.sms({ agentId: agent.agentId, from: '+14155550171', to: agent.channels.sms!.address, body: 'before' })).status, 200);
    }

    const legacy = async () => {
      // A 2025 client: a session with its stream, the inbox read and acknowledged through the tools.
      const first = await connectMcp(t.url, 'streamable', legacyAgent.securityToken, legacyAgent.agentId);
      const read = await first.call('comms_inbox_read', {});
      assert.deepEqual(bodiesOf(read.body as unknown as Page), ['before']);
      await first.call('comms_inbox_ack', { upTo: (read.body as unknown as Page).nextCursor });
      await first.close();
      const sent = await textWhileAway(legacyAgent, 6);
      const second = await connectMcp(t.url, 'streamable', legacyAgent.securityToken, legacyAgent.agentId);
      try {
        const back = await second.call('comms_inbox_read', {});
        assert.deepEqual(bodiesOf(back.body as unknown as Page), sent, 'every text from the time away, once, in order');
      } finally {
        await second.close();
      }
    };

    const modern = async () => {
      // A 2026-07-28 client: no session; a listen stream for the inbox, the inbox read as a resource.
      const connect = async () => {
        const client = new Client({ name: 'away-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: REVISION } } });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${modernAgent.securityToken}` } } }));
        return client;
      };
      const uri = `switchboard://agents/${modernAgent.agentId}/inbox`;
      const readInbox = async (client: Client) => JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text) as Page;
      const first = await connect();
      const listening = await first.listen({ resourceSubscriptions: [uri] });
      const page = await readInbox(first);
      assert.deepEqual(bodiesOf(page), ['before']);
      await first.callTool({ name: 'comms_inbox_ack', arguments: { upTo: page.nextCursor } });
      await listening.close();
      await first.close();
      const sent = await textWhileAway(modernAgent, 6);
      const second = await connect();
      try {
        assert.deepEqual(bodiesOf(await readInbox(second)), sent, 'every text from the time away, once, in order');
      } finally {
        await second.close();
      }
    };

    await Promise.all([legacy(), modern()]);
  });
});
