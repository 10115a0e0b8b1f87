import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { hasErrorCode } from '@switchboard/sdk';
import { ActorSystem } from '../src/actors/actor-system.js';
import type { AgentOperation } from '../src/actors/operation.js';
import { AgentClient } from '../src/agents/agent-client.js';
import { NatsBus } from '../src/bus/nats-bus.js';
import { PartitionedActors, partitionsServed } from '../src/cluster/partitioned-actors.js';
import { partitionOf } from '../src/cluster/partitions.js';
import { RuntimeEvents } from '../src/events.js';
import { newId } from '../src/ids.js';
import { Limiter } from '../src/limits/limiter.js';
import type { Limits } from '../src/limits/limits.js';
import { createLogger } from '../src/logger.js';
import { openStore, type Store } from '../src/store/store.js';
import { startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';
import { eventually, steadily } from '../src/testing/eventually.js';
import { testOperation } from '../src/testing/test-operation.js';

const PARTITIONS = 8;
const TTL_MS = 1500;
const LIMIT = 10;
const limits: Limits = { actionsPerMinute: null, actionsPerHour: null, actionsPerDay: LIMIT, spendPerDay: null, spendPerMonth: null, callsPerDayToSameNumber: null };
const logger = createLogger({ level: 'silent', pretty: false });
/** Holds the `fenced` operation between its start and its effect. */
let gate = open();
/** Makes the `broken` operation fail as an operation does when its node cannot serve it. */
let broken = false;
function open() {
  let release!: () => void;
  const promise = new Promise<void>((r) => (release = r));
  return { promise, release };
}

/** One runtime node: its own NATS connections, actors and limiter, over the shared store. */
interface Node {
  readonly id: string;
  readonly bus: NatsBus;
  readonly leaseConnection: NatsConnection;
  readonly system: ActorSystem;
  readonly host: PartitionedActors | undefined;
  /** Operations this node ran (passed the fence). */
  ran: number;
  close(): Promise<void>;
}

/**
 * `act` is a billable action: admitted by the real Limiter against the actor's ledger (loaded from
 * usage rows on activation) and recorded as a usage row, as sends do.
 */
function operations(store: Store, node: () => Node): AgentOperation[] {
  const limiter = new Limiter(store, limits, new RuntimeEvents());
  return [
    testOperation('act', async ({ actor }) => {
      node().ran++;
      await limiter.admit(actor, 0.01);
      await store.usage.insert({
        id: newId('use'),
        agentId: actor.agentId,
        channel: 'sms',
        action: 'message',
        quantity: 1,
        providerCost: null,
        tariffCost: 0.01,
        externalId: null,
        createdAt: new Date().toISOString(),
      });
      return { node: node().id };
    }),
    testOperation('broken', async () => {
      if (broken) throw new Error('the store is gone');
      return { broken: false };
    }),
    testOperation('fenced', async ({ tenure }) => {
      await gate.promise;
      tenure.assert();
      return { fenced: 'passed' };
    }),
  ];
}

async function startNode(server: TestNatsServer, store: Store, id: string, options: { bucket: string; placed: boolean }): Promise<Node> {
  const bus = await NatsBus.connect({ servers: server.url, name: id });
  const leaseConnection = await connect({ servers: server.url, name: `${id}-leases`, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  let self!: Node;
  const system = new ActorSystem({ bus, store, logger, idleMs: 60_000, operations: operations(store, () => self) });
  const host = options.placed
    ? new PartitionedActors({ bus, connection: leaseConnection, system, nodeId: id, partitions: PARTITIONS, leaseTtlMs: TTL_MS, bucket: options.bucket, logger })
    : undefined;
  self = {
    id,
    bus,
    leaseConnection,
    system,
    host,
    ran: 0,
    async close() {
      await host?.stop().catch(() => undefined);
      await system.stop();
      await bus.close();
      if (!leaseConnection.isClosed()) await leaseConnection.close();
    },
  };
  if (host) await host.start();
  else system.start();
  await bus.flush();
  return self;
}

/** 50 concurrent billable actions for one agent; what was admitted, and by which nodes. */
async function burst(client: AgentClient, agentId: string, count = 50) {
  const results = await Promise.allSettled(Array.from({ length: count }, () => client.request('act', agentId) as Promise<{ node: string }>));
  const admitted = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<{ node: string }>).value.node);
  const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as { code?: string });
  return { admitted: admitted.length, nodes: new Set(admitted), codes: new Set(refused.map((e) => e.code)) };
}

let server: TestNatsServer;
let dataDir: string;
let store: Store;
before(async () => {
  server = await startNatsServer();
  dataDir = mkdtempSync(join(tmpdir(), 'sb-cluster-'));
  store = await openStore({ dataDir, synchronous: 'NORMAL' });
});
after(async () => {
  await store?.close();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('placement: one actor per agent across runtime nodes', () => {
  const nodes: Node[] = [];
  let caller: NatsBus;
  let client: AgentClient;
  before(async () => {
    nodes.push(await startNode(server, store, 'node-a', { bucket: 'place', placed: true }));
    nodes.push(await startNode(server, store, 'node-b', { bucket: 'place', placed: true }));
    caller = await NatsBus.connect({ servers: server.url, name: 'gateway' });
    client = new AgentClient(caller, 5000, { partitions: PARTITIONS, retryUnavailableMs: 8000 });
  });
  after(async () => {
    await caller?.close();
    for (const node of nodes) await node.close();
  });
  const [a, b] = [() => nodes[0]!, () => nodes[1]!];
  const agents = Array.from({ length: 6 }, (_, i) => `agent-${i}`);

  it('splits the partitions between the nodes, each held by exactly one', async () => {
    await eventually(
      () => {
        const owned = [...a().host!.leases.owned(), ...b().host!.leases.owned()].sort((x, y) => x - y);
        return a().host!.leases.owned().length > 0 && b().host!.leases.owned().length > 0 && owned.join() === [...Array(PARTITIONS).keys()].join();
      },
      { timeoutMs: 4 * TTL_MS, message: 'both nodes hold a share and together all partitions' },
    );
    const both = a().host!.leases.owned().filter((p) => b().host!.leases.holds(p));
    assert.deepEqual(both, []);
  });

  it('admits exactly the limit of 10 out of 50 concurrent actions per agent, each agent served by one node', async () => {
    const served = new Set<string>();
    for (const agentId of agents) {
      const { admitted, nodes: by, codes } = await burst(client, agentId);
      assert.equal(admitted, LIMIT, `${agentId}: admitted ${admitted}`);
      assert.deepEqual([...codes], ['RATE_LIMITED'], `${agentId}: refusals ${[...codes]}`);
      assert.equal(by.size, 1, `${agentId} served by ${[...by]}`);
      served.add([...by][0]!);
    }
    assert.equal(served.size, 2, 'the agents are spread over both nodes');
  });

  it('gives operations a tenure that holds while the node holds the partition', async () => {
    const partition = a().host!.leases.owned()[0]!;
    const agentId = Array.from({ length: 200 }, (_, i) => `f-${i}`).find((id) => partitionOf(id, PARTITIONS) === partition)!;
    gate.release();
    assert.deepEqual(await a().host!.serve(partition, 'fenced', { agentId }), { fenced: 'passed' });
  });

  it('refuses, at the node, an agent whose partition the caller got wrong', async () => {
    const held = a().host!.leases.owned()[0]!;
    const stranger = Array.from({ length: 100 }, (_, i) => `x${i}`).find((id) => partitionOf(id, PARTITIONS) !== held)!;
    await assert.rejects(a().host!.serve(held, 'act', { agentId: stranger }), (err: unknown) => hasErrorCode(err, 'BAD_REQUEST'));
  });

  it('keeps serving a partition after refusing a call in a moment its lease was not valid, once the lease is renewed', async () => {
    // The moment between a lease's validity running out and its late renewal being answered (a NATS
    // restart, a stalled event loop): calls are refused, and the node must not stop listening for good.
    const partition = a().host!.leases.owned()[0]!;
    const agentId = agents.find((id) => partitionOf(id, PARTITIONS) === partition) ?? Array.from({ length: 200 }, (_, i) => `late-${i}`).find((id) => partitionOf(id, PARTITIONS) === partition)!;
    const leases = a().host!.leases;
    const holds = leases.holds.bind(leases);
    leases.holds = (p: number) => (p === partition ? false : holds(p));
    try {
      await assert.rejects(a().host!.serve(partition, 'act', { agentId }), (err: unknown) => hasErrorCode(err, 'UNAVAILABLE'));
    } finally {
      leases.holds = holds;
    }
    const quick = new AgentClient(caller, 2000, { partitions: PARTITIONS, retryUnavailableMs: 0 });
    for (let i = 0; i < 5; i++) assert.deepEqual(await quick.request('broken', agentId), { broken: false }, `call ${i} after the refusal`);
    assert.deepEqual(a().host!.problems(), []);
  });

  it('shows a partition whose operations keep failing as a problem and restarts it; a success clears it', async () => {
    const partition = a().host!.leases.owned()[0]!;
    const agentId = Array.from({ length: 200 }, (_, i) => `broken-${i}`).find((id) => partitionOf(id, PARTITIONS) === partition)!;
    const quick = new AgentClient(caller, 2000, { partitions: PARTITIONS, retryUnavailableMs: 0 });
    broken = true;
    try {
      await steadily(() => quick.request('broken', agentId).then(() => false, () => true), { forMs: TTL_MS, intervalMs: 50, message: 'every call of the broken operation fails' });
      const problems = a().host!.problems();
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.match(problems[0]!, new RegExp(`partition ${partition}: \\d+ operations failed in a row .*restarted [1-9]`));
      // The gateways' probe of the partition is refused while it fails.
      await assert.rejects(caller.request(`sb.agent.${partition}._probe`, {}), (err: unknown) => hasErrorCode(err, 'UNAVAILABLE'));
      // A gateway's readiness check names it (no grace here).
      await assert.rejects(partitionsServed(caller, PARTITIONS, 0)(), new RegExp(`partition ${partition} not served`));
    } finally {
      broken = false;
    }
    assert.deepEqual(await quick.request('broken', agentId), { broken: false });
    assert.deepEqual(a().host!.problems(), []);
    assert.deepEqual(await caller.request(`sb.agent.${partition}._probe`, {}), { node: 'node-a', partition });
    assert.equal(await partitionsServed(caller, PARTITIONS, 0)(), 'ok');
  });

  it('drops a partition at once when its lease is taken from under it (fencing), and refuses to act on it', async () => {
    const partition = a().host!.leases.owned()[0]!;
    const agentId = Array.from({ length: 200 }, (_, i) => `fence-${i}`).find((id) => partitionOf(id, PARTITIONS) === partition)!;
    // An operation is under way when the lease goes: its effect, behind the fence, must not happen.
    gate = open();
    const underWay = a().host!.serve(partition, 'fenced', { agentId });
    // Someone else writes the lease: node A's next renewal, checked against its revision, fails.
    const kv = await new Kvm(caller.connection).open('place');
    await kv.put(`p.${partition}`, JSON.stringify({ node: 'intruder' }));
    await eventually(() => !a().host!.leases.holds(partition), { timeoutMs: TTL_MS, message: 'node A lets the partition go' });
    gate.release();
    await assert.rejects(underWay, (err: unknown) => hasErrorCode(err, 'UNAVAILABLE'));
    const ran = a().ran;
    await assert.rejects(a().host!.serve(partition, 'act', { agentId }), (err: unknown) => hasErrorCode(err, 'UNAVAILABLE'));
    assert.equal(a().ran, ran, 'the fenced-out node ran nothing');
    // The intruder never renews: its lease expires and a live node takes the partition back.
    await eventually(() => a().host!.leases.holds(partition) || b().host!.leases.holds(partition), { timeoutMs: 3 * TTL_MS, message: 'a live node holds the partition again' });
  });

  it('moves a dead node\'s partitions to the other within seconds; the dead node stops acting first; state reloads from the store', async () => {
    const victim = a();
    const survivor = b();
    const victimAgents = agents.filter((id) => victim.host!.leases.holds(partitionOf(id, PARTITIONS)));
    assert.ok(victimAgents.length > 0, 'node A serves some agents');
    // Kill node A's connections (its process stays, as a paused or cut-off node would).
    const killedAt = Date.now();
    await Promise.all([victim.leaseConnection.close(), victim.bus.connection.close()]);
    let victimStillHeld = -1;
    const waitStarted = Date.now();
    await eventually(
      () => {
        if (survivor.host!.leases.owned().length !== PARTITIONS) return false;
        victimStillHeld = victim.host!.leases.owned().length;
        return true;
      },
      { timeoutMs: TTL_MS + 20_000, message: 'node B holds every partition' },
    );
    const gap = Date.now() - waitStarted;
    assert.equal(victimStillHeld, 0, 'when B took over, A already held nothing (its leases lapsed before the server let B in)');
    console.log(`# takeover after a killed node: ${gap} ms (lease TTL ${TTL_MS} ms)`);
    assert.ok(Date.now() - killedAt <= TTL_MS + 20_000);
    // The agents A served reached their limit there; B loads their ledgers from the store: nothing more is admitted.
    for (const agentId of victimAgents) {
      const { admitted, nodes: by } = await burst(client, agentId, 20);
      assert.equal(admitted, 0, `${agentId} admitted ${admitted} more after takeover`);
      assert.deepEqual([...by], []);
    }
    const fresh = Array.from({ length: 200 }, (_, i) => `after-${i}`).find((id) => victimAgents.every((v) => partitionOf(v, PARTITIONS) !== partitionOf(id, PARTITIONS)) && victim.host!.leases.holds(partitionOf(id, PARTITIONS)) === false)!;
    const { admitted, nodes: by } = await burst(client, fresh);
    assert.equal(admitted, LIMIT);
    assert.deepEqual([...by], ['node-b']);
    const ran = victim.ran;
    await assert.rejects(victim.host!.serve(partitionOf(fresh, PARTITIONS), 'act', { agentId: fresh }), (err: unknown) => hasErrorCode(err, 'UNAVAILABLE'));
    assert.equal(victim.ran, ran, 'the dead node ran nothing');
  });

  it('a node that stops hands its partitions over at once, without waiting for the TTL', async () => {
    const c = await startNode(server, store, 'node-c', { bucket: 'place', placed: true });
    nodes.push(c);
    await eventually(() => c.host!.leases.owned().length > 0, { timeoutMs: 4 * TTL_MS, message: 'node C takes its share' });
    const started = Date.now();
    await c.host!.stop();
    const stopped = Date.now();
    await eventually(() => b().host!.leases.owned().length === PARTITIONS, { timeoutMs: TTL_MS, message: 'node B holds every partition again' });
    const gap = Date.now() - stopped;
    console.log(`# handover by a stopping node: ${Date.now() - started} ms (B complete ${gap} ms after C stopped)`);
  });
});

describe('control: without placement the same burst overshoots', () => {
  it('two nodes sharing a plain queue group admit more than the limit, each with its own ledger', async () => {
    const [x, y] = [await startNode(server, store, 'plain-x', { bucket: 'plain', placed: false }), await startNode(server, store, 'plain-y', { bucket: 'plain', placed: false })];
    const caller = await NatsBus.connect({ servers: server.url });
    try {
      const { admitted, nodes: by } = await burst(new AgentClient(caller, 5000, { partitions: PARTITIONS }), 'control-agent');
      assert.equal(by.size, 2);
      assert.ok(admitted > LIMIT, `admitted ${admitted}`);
    } finally {
      await caller.close();
      await x.close();
      await y.close();
    }
  });
});
