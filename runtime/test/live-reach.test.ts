import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LocalLiveReach, NatsLiveReach, type LocalSessions } from '../src/agents/live-reach.js';
import { NatsBus } from '../src/bus/nats-bus.js';
import type { AgentEvent } from '../src/delivery/agent-events.js';
import { describeLiveReachConformance } from '../src/testing/index.js';
import { startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';
import { eventually } from '../src/testing/eventually.js';

let server: TestNatsServer;
before(async () => {
  server = await startNatsServer();
});
after(async () => {
  await server.stop();
});

describeLiveReachConformance('in process', async () => {
  const reach = new LocalLiveReach();
  return { server: reach, reacher: reach, close: async () => undefined };
});

// A gateway holding the sessions and a runtime node reaching them, each on its own connection.
describeLiveReachConformance('over NATS', async () => {
  const gateway = await NatsBus.connect({ servers: server.url, name: 'conf-gateway' });
  const node = await NatsBus.connect({ servers: server.url, name: 'conf-node' });
  return {
    server: new NatsLiveReach(gateway),
    reacher: new NatsLiveReach(node),
    close: async () => {
      await gateway.close();
      await node.close();
    },
  };
});

describe('presence over NATS: a runtime node asks only when some gateway may hold a session', () => {
  const timing = { beatMs: 50 };
  const connections: NatsBus[] = [];
  const connectBus = async (name: string) => {
    const bus = await NatsBus.connect({ servers: server.url, name });
    connections.push(bus);
    return bus;
  };
  after(async () => {
    await Promise.all(connections.map((bus) => bus.close()));
  });
  const sessions = (held: Set<string>): LocalSessions => ({
    deliver: async (agentId) => held.has(agentId),
    holds: (agentId) => held.has(agentId),
    sample: () => undefined,
    samples: () => false,
  });
  const event = (agentId: string) => ({ id: `evt_presence_${agentId}`, type: 'message.inbound', agentId, createdAt: new Date().toISOString(), data: {} }) as unknown as AgentEvent;

  it('is unsure (holds) until it has listened a few beats, then holds only the agents a gateway announced, opened and closed', async () => {
    const held = new Set<string>(['pres-early']);
    const gateway = new NatsLiveReach(await connectBus('presence-gateway'), 5000, timing);
    const changed = gateway.serve(sessions(held));
    changed('pres-early');
    const node = new NatsLiveReach(await connectBus('presence-node'), 5000, timing);
    node.followPresence();
    assert.equal(node.holds('pres-nobody'), true, 'a node that has not listened yet must ask');
    // The session opened before the node listened comes with the gateway's list.
    await eventually(() => !node.holds('pres-nobody'), { message: 'the node is sure that no gateway holds pres-nobody' });
    assert.equal(node.holds('pres-early'), true);
    assert.equal(await node.deliver('pres-nobody', event('pres-nobody')), false);

    held.add('pres-late');
    changed('pres-late');
    await eventually(() => node.holds('pres-late'), { message: 'the node hears of the new session' });
    assert.equal(await node.deliver('pres-late', event('pres-late')), true);
    held.delete('pres-late');
    changed('pres-late');
    await eventually(() => !node.holds('pres-late'), { message: 'the node hears the session closed' });
    assert.equal(node.holds('pres-early'), true);
  });

  it('a change out of turn makes a node fetch the whole list again, and a resync makes it unsure again', async () => {
    const held = new Set<string>(['pres-kept']);
    const gatewayBus = await connectBus('presence-gateway-2');
    // The gateway's name on the presence subjects, from its first beat.
    const named = new Promise<string>((resolve) => {
      const sub = gatewayBus.subscribe('sb.presence.*', (_note, subject) => {
        sub.unsubscribe();
        resolve(subject);
      });
    });
    await gatewayBus.flush();
    const changed = new NatsLiveReach(gatewayBus, 5000, timing).serve(sessions(held));
    const subject = await named;
    changed('pres-kept');
    const node = new NatsLiveReach(await connectBus('presence-node-2'), 5000, timing);
    const presence = node.followPresence();
    await eventually(() => node.holds('pres-kept') && !node.holds('pres-fake'), { message: 'the node is sure' });
    // A change numbered past the next: one was missed, so the node takes the gateway's list, which has no pres-fake.
    gatewayBus.publish(subject, { seq: 99, agentId: 'pres-fake', live: true });
    await gatewayBus.flush();
    await eventually(() => !node.holds('pres-fake'), { message: 'the change out of turn is not applied' });
    assert.equal(node.holds('pres-kept'), true);
    presence.resync();
    assert.equal(node.holds('pres-other'), true, 'unsure after a resync');
    await eventually(() => !node.holds('pres-other') && node.holds('pres-kept'), { message: 'sure again after the resync' });
  });

  it('with no gateway announcing (an older gateway, or NATS refusing sb.presence) it never stops asking', async () => {
    // A NATS of its own: the other cases' gateways announce on the shared one.
    const alone = await startNatsServer();
    const bus = await NatsBus.connect({ servers: alone.url, name: 'presence-node-alone' });
    try {
      const node = new NatsLiveReach(bus, 5000, { beatMs: 20 });
      node.followPresence();
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(node.holds('pres-unknown'), true);
    } finally {
      await bus.close();
      await alone.stop();
    }
  });

  it('forgets a gateway that stopped beating, and its sessions with it', async () => {
    const held = new Set<string>(['pres-gone']);
    const gatewayBus = await NatsBus.connect({ servers: server.url, name: 'presence-gateway-3' });
    const changed = new NatsLiveReach(gatewayBus, 5000, timing).serve(sessions(held));
    changed('pres-gone');
    const node = new NatsLiveReach(await connectBus('presence-node-3'), 5000, timing);
    node.followPresence();
    await eventually(() => node.holds('pres-gone') && !node.holds('pres-none'), { message: 'the node knows the session' });
    // Another gateway announces on, so that the node stays sure once it forgets the first.
    new NatsLiveReach(await connectBus('presence-gateway-4'), 5000, timing).serve(sessions(new Set()));
    await gatewayBus.close();
    await eventually(() => !node.holds('pres-gone'), { message: 'the node forgets the gateway' });
  });
});
