import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import { AGENT_SUBJECT } from '../src/actors/actor-system.js';
import { AGENT_OPERATIONS, checkRequest, checkResponse, isOperationName } from '../src/protocol/operations.js';
import { partitionOf } from '../src/cluster/partitions.js';
import { createLogger } from '../src/logger.js';
import { startEmbedded, type EmbeddedRuntime } from '../src/roles/embedded.js';
import { loadSettings } from '../src/settings/load.js';

const refusedAs = (code: string, mentions: RegExp) => (err: { code?: string; message?: string }) => err.code === code && mentions.test(err.message ?? '');

describe('the agent operation catalogue at the bus edge', () => {
  let sim: Simulator;
  let dataDir: string;
  let runtime: EmbeddedRuntime;
  /** A raw bus request, as any process on the bus could send one, bypassing the typed client. */
  const publish = (operation: string, agentId: string, payload: object) =>
    runtime.inspect.bus.request(`${AGENT_SUBJECT}.${partitionOf(agentId)}.${operation}`, { ...payload, agentId }, { timeoutMs: 5000 });

  before(async () => {
    sim = await startSimulator({ host: '127.0.0.1', port: 0 });
    dataDir = mkdtempSync(join(tmpdir(), 'sb-catalogue-'));
    const settings = loadSettings({ env: {}, overrides: { DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'silent', POOL_PHONE_NUMBERS: '+15550001111' } });
    runtime = await startEmbedded({ settings, logger: createLogger({ level: 'silent', pretty: false }) });
    await runtime.attach({
      publicBaseUrl: 'http://127.0.0.1:9',
      drivers: [{ packageName: '@switchboard/driver-twilio', settings: { ...sim.credentials.twilio, baseUrl: sim.baseUrls.twilio } }],
      importer: (name) => import(name),
    });
    await runtime.inspect.agents.call('provision', 'cat-1', { displayName: 'Catalogue', channels: ['sms'] });
  });
  after(async () => {
    await runtime?.stop();
    await sim?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('compiles a request and an answer schema for every operation', () => {
    for (const name of Object.keys(AGENT_OPERATIONS)) {
      assert.ok(isOperationName(name));
      assert.throws(() => checkRequest(name, {}), refusedAs('BAD_REQUEST', new RegExp(name)));
      assert.throws(() => checkResponse(name, 'not an answer'), refusedAs('INTERNAL', new RegExp(name)));
    }
    assert.equal(isOperationName('toString'), false);
  });

  it('refuses a send whose payload does not match, naming the field, and stores nothing', async () => {
    await assert.rejects(publish('send', 'cat-1', { channel: 'fax', to: '+15551234567', body: 'hi' }), refusedAs('BAD_REQUEST', /channel/));
    // `body` or a WhatsApp `template`: one of them, which the operation itself checks.
    await assert.rejects(publish('send', 'cat-1', { channel: 'sms', to: '+15551234567' }), refusedAs('VALIDATION_FAILED', /`body`.*`template`/));
    await assert.rejects(publish('send', 'cat-1', { channel: 'whatsapp', to: '+15551234567', template: { contentSid: 7 } }), refusedAs('BAD_REQUEST', /contentSid/));
    await assert.rejects(publish('send', 'cat-1', { channel: 'sms', to: '+15551234567', body: { nested: true } }), refusedAs('BAD_REQUEST', /body/));
    assert.deepEqual(await runtime.inspect.stored.messageCounts('cat-1'), {});
    assert.equal(sim.messages().length, 0);
  });

  it('refuses a provision with a malformed channel list and creates no agent', async () => {
    await assert.rejects(publish('provision', 'cat-2', { displayName: 'x', channels: 'sms', tokenHash: 'a'.repeat(64) }), refusedAs('BAD_REQUEST', /channels/));
    // The caller mints the token: a provision over the bus carries its hash, never the token.
    await assert.rejects(publish('provision', 'cat-2', { displayName: 'x', channels: ['sms'] }), refusedAs('BAD_REQUEST', /tokenHash/));
    await assert.rejects(publish('provision', 'cat-2', { displayName: 'x', channels: ['sms'], tokenHash: 'sb_live_notahash' }), refusedAs('BAD_REQUEST', /tokenHash/));
    assert.equal(await runtime.inspect.stored.agent('cat-2'), undefined);
  });

  it('refuses an operation outside the catalogue and one without an agent id', async () => {
    await assert.rejects(publish('dropTables', 'cat-1', {}), refusedAs('BAD_REQUEST', /Unknown agent operation/));
    await assert.rejects(runtime.inspect.bus.request(`${AGENT_SUBJECT}.0.get`, {}, { timeoutMs: 5000 }), refusedAs('BAD_REQUEST', /get/));
  });

  it('answers a well-formed call with its checked answer', async () => {
    const sent = await runtime.inspect.agents.call('send', 'cat-1', { channel: 'sms', to: '+15551234567', body: 'hello' });
    assert.equal(sent.success, true);
    assert.equal(sent.channel, 'sms');
    assert.equal(sim.messages().length, 1);
    const status = await runtime.inspect.agents.call('channelStatus', 'cat-1');
    assert.equal(status.channels.sms.status, 'active');
    assert.equal(status.channels.sms.messageCount, 1);
  });
});
