import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AgentClient, MemoryBus } from '../src/internal.js';
import { RecentAgents } from '../src/agents/recent-agents.js';
import type { AgentRecord } from '../src/store/repositories/agents.js';

const record = (agentId: string, callbackUrl: string | null): AgentRecord => ({
  agentId, displayName: agentId, status: 'active', blockedChannels: [], callbackUrl, sealedSigningSecret: null, greeting: null, systemPrompt: null,
  voice: null, language: null, channels: [], createdAt: '2026-11-29T00:00:00.000Z', updatedAt: '2026-11-29T00:00:00.000Z',
});

/** A repository whose record the test changes, counting reads. */
function repository(initial: AgentRecord | undefined) {
  const state = { current: initial, reads: 0, hold: undefined as Promise<void> | undefined };
  return {
    state,
    repo: {
      async get() {
        state.reads++;
        const seen = state.current;
        await state.hold;
        return seen;
      },
    },
  };
}

describe('RecentAgents: the records the edge stores inbound messages with', () => {
  it('reads an agent once a moment, again after the moment or a forget', async () => {
    let now = 1_000;
    const { state, repo } = repository(record('a', null));
    const recent = new RecentAgents(repo, 1_000, () => now);
    assert.equal((await recent.get('a'))?.callbackUrl, null);
    await recent.get('a');
    assert.equal(state.reads, 1, 'a second webhook within the moment reads nothing');
    state.current = record('a', 'https://agent.example.com/hook');
    recent.forget('a');
    assert.equal((await recent.get('a'))?.callbackUrl, 'https://agent.example.com/hook');
    state.current = undefined;
    now += 1_001;
    assert.equal(await recent.get('a'), undefined, 'past the moment the store is read again (the agent is gone)');
    assert.equal(state.reads, 3);
  });

  it('does not keep a read that a forget overtook: it may predate the change', async () => {
    const { state, repo } = repository(record('a', null));
    const recent = new RecentAgents(repo);
    let release!: () => void;
    state.hold = new Promise((r) => (release = r));
    const reading = recent.get('a');
    recent.forget('a');
    state.current = record('a', 'https://agent.example.com/hook');
    release();
    assert.equal((await reading)?.callbackUrl, null, 'the read in flight answers what it saw');
    state.hold = undefined;
    assert.equal((await recent.get('a'))?.callbackUrl, 'https://agent.example.com/hook', 'and was not kept');
  });

  it("the agent client tells of operations that change an agent's record, not of the others", async () => {
    const bus = new MemoryBus();
    bus.subscribe('sb.agent.*.*', () => ({ ok: true }), { queue: 'runtime' });
    const client = new AgentClient(bus);
    const told: string[] = [];
    client.onChange((agentId) => told.push(agentId));
    await client.request('setBlockedChannels', 'a', { blockedChannels: [] });
    await client.request('inbound', 'b', {});
    await client.request('get', 'c', {});
    await client.request('setCallbackUrl', 'd', { callbackUrl: null });
    assert.deepEqual(told, ['a', 'd']);
  });
});
