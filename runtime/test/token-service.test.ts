import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TokenService } from '../src/auth/token-service.js';
import { MemoryBus } from '../src/bus/memory-bus.js';
import { revokedSubject } from '../src/protocol/index.js';
import { SecretBox, hashToken, newToken } from '../src/secrets.js';
import type { AgentRecord } from '../src/store/repositories/agents.js';
import { openStore, type Store } from '../src/store/store.js';

describe('TokenService: tokens kept between reads, forgotten when revoked anywhere', () => {
  let dir: string;
  let store: Store;
  let reads = 0;
  const box = new SecretBox(randomBytes(32));
  let clock = 0;
  const register = async (tokens: TokenService, agentId: string) => {
    const token = newToken('sb_client');
    const now = new Date().toISOString();
    const agent: AgentRecord = {
      agentId,
      displayName: agentId,
      status: 'active',
      blockedChannels: [],
      callbackUrl: null,
      sealedSigningSecret: null,
      greeting: null,
      systemPrompt: null,
      voice: null,
      language: null,
      recordCalls: false,
      requireConsent: [],
      listUnsubscribe: false,
      channels: [],
      createdAt: now,
      updatedAt: now,
    };
    await store.db.transaction(async (tx) => {
      await store.agents.insert(tx, agent);
      await tokens.registerClientToken(tx, agentId, hashToken(token));
    });
    return token;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-tokens-'));
    store = await openStore({ dataDir: dir });
    const findByHash = store.tokens.findByHash.bind(store.tokens);
    store.tokens.findByHash = (hash, ...rest) => {
      reads++;
      return findByHash(hash, ...rest);
    };
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a client token is read once, then again only after 5 s', async () => {
    const tokens = new TokenService(store, box, undefined, () => clock);
    const token = await register(tokens, 'kept-1');
    const before = reads;
    for (let i = 0; i < 3; i++) assert.deepEqual((await tokens.authenticate(token))?.kind, 'client');
    assert.equal(reads - before, 1, 'one read for three requests');
    clock += 5_001;
    await tokens.authenticate(token);
    assert.equal(reads - before, 2, 'read again once 5 s passed');
  });

  it("another process's revocation, heard on the bus, makes this one refuse the agent's token at once", async () => {
    const bus = new MemoryBus();
    const here = new TokenService(store, box, bus, () => clock);
    const there = new TokenService(store, box, bus, () => clock);
    const token = await register(here, 'revoked-1');
    const other = await register(here, 'revoked-2');
    assert.equal((await here.authenticate(token))?.kind, 'client');
    assert.equal((await here.authenticate(other))?.kind, 'client');
    await store.db.transaction((tx) => there.revokeClientTokens(tx, 'revoked-1'));
    there.announceRevoked('revoked-1');
    assert.equal(await here.authenticate(token), undefined, 'refused at once, not after 5 s');
    const before = reads;
    assert.equal((await here.authenticate(other))?.kind, 'client', "another agent's token is still kept");
    assert.equal(reads, before, 'and not read again');
    bus.publish(revokedSubject(), { nonsense: true });
    assert.equal((await here.authenticate(other))?.kind, 'client', 'an announcement naming nothing changes nothing');
  });

  it('a read a revocation overtook is used for its request but not kept', async () => {
    const bus = new MemoryBus();
    const tokens = new TokenService(store, box, bus, () => clock);
    const token = await register(tokens, 'overtaken-1');
    const findByHash = store.tokens.findByHash;
    // The revocation is heard while the read is on its way back from the store.
    store.tokens.findByHash = async (hash, ...rest) => {
      const record = await findByHash(hash, ...rest);
      bus.publish(revokedSubject(), { agentId: 'overtaken-1' });
      return record;
    };
    try {
      assert.equal((await tokens.authenticate(token))?.kind, 'client');
    } finally {
      store.tokens.findByHash = findByHash;
    }
    const before = reads;
    await tokens.authenticate(token);
    assert.equal(reads - before, 1, 'the overtaken read was not kept');
  });

  it('a replaced team token is refused by every process that heard it', async () => {
    const bus = new MemoryBus();
    const here = new TokenService(store, box, bus, () => clock);
    const there = new TokenService(store, box, bus, () => clock);
    await here.init('');
    const team = await here.teamToken();
    assert.equal((await here.authenticate(team))?.kind, 'team');
    const next = await there.regenerateTeamToken();
    assert.equal(await here.authenticate(team), undefined);
    assert.equal((await here.authenticate(next))?.kind, 'team');
  });
});
