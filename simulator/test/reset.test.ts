import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../src/index.js';
import { startFakeGateway, type FakeGateway } from './phone-gateway.js';

const pacing = async (sim: Simulator) => (await (await fetch(`${sim.url}/_sim/phone/pacing`)).json()) as { activeCalls: number; activeStreams: number };

describe('POST /_sim/reset', () => {
  let sim: Simulator;
  let gateway: FakeGateway;
  before(async () => {
    const twilio = { accountSid: `AC${'c3'.repeat(16)}`, authToken: 'd4'.repeat(16) };
    gateway = await startFakeGateway(twilio.authToken, { 'stream-agent': { mode: 'stream', greeting: 'Hello caller' } });
    sim = await startSimulator({ gatewayUrl: gateway.url, credentials: { twilio }, phone: { dialMs: 20, ringMs: 60 } });
  });
  after(async () => {
    await sim.close();
    await gateway.close();
  });

  it('hangs up live calls, as sim.reset() does, and forgets them', async () => {
    const placed = await fetch(`${sim.url}/_sim/phone/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agentId: 'stream-agent', from: '+447700900124', to: '+15555550100', mode: 'stream', script: { steps: [{ kind: 'pause', ms: 60_000 }], maxDurationMs: 60_000 } }),
    });
    assert.equal(placed.status, 200);
    for (let i = 0; i < 200 && (await pacing(sim)).activeStreams === 0; i++) await new Promise((r) => setTimeout(r, 25));
    const live = await pacing(sim);
    assert.equal(live.activeCalls, 1);
    assert.equal(live.activeStreams, 1);

    const reset = await fetch(`${sim.url}/_sim/reset`, { method: 'POST' });
    assert.equal(reset.status, 200);
    assert.equal((await pacing(sim)).activeCalls, 0);
    for (let i = 0; i < 200 && (await pacing(sim)).activeStreams > 0; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal((await pacing(sim)).activeStreams, 0, 'the media stream closed');
    const calls = (await (await fetch(`${sim.url}/_sim/phone/calls`)).json()) as { calls: unknown[] };
    assert.deepEqual(calls.calls, []);
  });
});
