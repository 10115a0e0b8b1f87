import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { JetStreamWorkQueue, NatsBus, NatsLiveReach, protocol } from '@switchboard/runtime/internal';
import { NO_NATS_SETTINGS, startSecureNats, type SecureNatsCluster, eventually } from '@switchboard/runtime/testing';

const { AGENT_SUBJECT, LEASES_BUCKET, liveSubject, WORK_STREAM, WORK_SUBJECT_PREFIX } = protocol;

/**
 * The shipped nats-server configuration (deploy/nats) under test: TLS with client certificates, a user
 * per role. What each role may do on the bus, and what the server refuses it.
 */
describe('NATS as deploy/nats configures it: TLS, a user per role, subject permissions', { timeout: 120_000 }, () => {
  let nats: SecureNatsCluster;
  let runtime: NatsConnection;
  let gateway: NatsConnection;
  let runtimeJsm: JetStreamManager;
  let leases: KV;

  before(async () => {
    nats = await startSecureNats();
    runtime = await nats.connect('runtime');
    gateway = await nats.connect('gateway');
    runtimeJsm = await jetstreamManager(runtime);
    // What a runtime node makes: the work stream and the lease bucket, each with an item in it.
    await runtimeJsm.streams.add({ name: WORK_STREAM, subjects: [`${WORK_SUBJECT_PREFIX}.>`], retention: RetentionPolicy.Workqueue, storage: StorageType.File });
    await jetstream(runtime).publish(`${WORK_SUBJECT_PREFIX}.deliver`, JSON.stringify({ acknowledged: 'inbound' }));
    leases = await new Kvm(runtime).create(LEASES_BUCKET, { history: 1 });
    await leases.put('p.1', 'rt-1');
  });

  after(async () => {
    await runtime?.close();
    await gateway?.close();
    await nats?.stop();
  });

  const workItems = async () => (await runtimeJsm.streams.info(WORK_STREAM)).state.messages;
  /** Runs `attempt` as the gateway: it must fail, and the server must log a violation naming `subject`. */
  const refused = async (subject: string, attempt: () => Promise<unknown>) => {
    const before = nats.violations().length;
    await assert.rejects(attempt(), `the gateway was allowed ${subject}`);
    await eventually(() => nats.violations().slice(before).some((line) => line.includes(subject)), {
      intervalMs: 50,
      message: () => `nats-server to log a violation for ${subject}: ${nats.violations().slice(before).join('\n')}`,
    });
  };

  it('refuses a client without credentials, and one without TLS', async () => {
    const noUser = connect({ servers: nats.url.replace('tls://', ''), tls: { caFile: nats.tls.caFile, certFile: nats.tls.certFile, keyFile: nats.tls.keyFile }, reconnect: false });
    await assert.rejects(noUser, /authorization/i);
    const noTls = connect({ servers: nats.url.replace('tls://', ''), user: 'gateway', pass: nats.passwords.gateway, tls: null, reconnect: false });
    await assert.rejects(noTls);
    const noClientCert = connect({ servers: nats.url.replace('tls://', ''), user: 'gateway', pass: nats.passwords.gateway, tls: { caFile: nats.tls.caFile }, reconnect: false });
    await assert.rejects(noClientCert);
    const wrongPassword = connect({ servers: nats.url.replace('tls://', ''), user: 'runtime', pass: nats.passwords.gateway, tls: { caFile: nats.tls.caFile, certFile: nats.tls.certFile, keyFile: nats.tls.keyFile }, reconnect: false });
    await assert.rejects(wrongPassword, /authorization/i);
  });

  it('connects a Switchboard process from its NATS_* settings', async () => {
    const { natsConnectionOptions } = await import('@switchboard/runtime');
    const bus = await NatsBus.connect(natsConnectionOptions({ ...NO_NATS_SETTINGS, ...nats.settings('gateway') }));
    try {
      await bus.flush();
    } finally {
      await bus.close();
    }
  });

  it('lets a gateway request agent operations and serve live reach; a runtime node serves and requests them', async () => {
    const node = NatsBus.fromConnection(runtime);
    const gw = NatsBus.fromConnection(gateway);
    const served = node.subscribe(`${AGENT_SUBJECT}.3.*`, (data) => ({ echoed: data }));
    const live = gw.subscribe(liveSubject('agent.one'), () => true);
    await node.flush();
    await gw.flush();
    assert.deepEqual(await gw.request(`${AGENT_SUBJECT}.3.send`, { agentId: 'a' }), { echoed: { agentId: 'a' } });
    assert.equal(await node.request(liveSubject('agent.one'), { kind: 'message' }), true);
    served.unsubscribe();
    live.unsubscribe();
  });

  it('lets a gateway announce the agents it holds live sessions of, and a runtime node follow them', async () => {
    const held = new Set(['agent.present']);
    const changed = new NatsLiveReach(NatsBus.fromConnection(gateway), 5000, { beatMs: 100 }).serve({
      deliver: async (agentId) => held.has(agentId),
      holds: (agentId) => held.has(agentId),
      sample: () => undefined,
      samples: () => false,
    });
    changed('agent.present');
    const node = new NatsLiveReach(NatsBus.fromConnection(runtime), 5000, { beatMs: 100 });
    const presence = node.followPresence();
    const before = nats.violations().length;
    // Sure of the view (past its first beats) with the gateway's list fetched: the one agent held, no other.
    await eventually(() => !node.holds('agent.absent') && node.holds('agent.present'), {
      message: () => `the node to learn the gateway's presence: ${nats.violations().slice(before).join('\n')}`,
    });
    assert.equal(await node.deliver('agent.present', { id: 'evt_1', type: 'message.inbound', agentId: 'agent.present', createdAt: new Date().toISOString(), data: {} } as never), true);
    // A gateway follows the others' presence too: whether a message it stores reaches a live session.
    const otherGateway = new NatsLiveReach(NatsBus.fromConnection(gateway), 5000, { beatMs: 100 });
    const seen = otherGateway.followPresence();
    await eventually(() => !otherGateway.holds('agent.absent') && otherGateway.holds('agent.present'), {
      message: () => `a gateway to learn another's presence: ${nats.violations().slice(before).join('\n')}`,
    });
    assert.deepEqual(nats.violations().slice(before), []);
    seen.stop();
    presence.stop();
    held.clear();
    changed('agent.present');
  });

  it("lets a runtime node announce an agent's inbox change, and a gateway follow it", async () => {
    const gatewayReach = new NatsLiveReach(NatsBus.fromConnection(gateway));
    const nodeReach = new NatsLiveReach(NatsBus.fromConnection(runtime));
    const heard: string[] = [];
    const unfollow = gatewayReach.followInboxes((agentId) => heard.push(agentId));
    await gateway.flush();
    const before = nats.violations().length;
    await eventually(
      () => {
        if (heard.includes('agent.inbox')) return true;
        nodeReach.inboxChanged('agent.inbox');
        return false;
      },
      { intervalMs: 50, message: () => `the gateway to hear an inbox change: ${nats.violations().slice(before).join('\n')}` },
    );
    assert.deepEqual(nats.violations().slice(before), []);
    unfollow();
  });

  it('a gateway queues the delivery of a message it stored and the event of a receipt it applied, through the work queue as a runtime node does', async () => {
    const before = nats.violations().length;
    const queue = new JetStreamWorkQueue({ connection: gateway });
    const { duplicate } = await queue.enqueue('deliver', 'msg_gateway_stored', { messageId: 'msg_gateway_stored' });
    assert.equal(duplicate, false);
    assert.equal(await workItems(), 2, 'the delivery is queued beside the earlier item');
    const told = await queue.enqueue('notify', 'evt_gateway_applied', { agentId: 'agent.inbox', eventId: 'evt_gateway_applied' });
    assert.equal(told.duplicate, false);
    assert.equal(await workItems(), 3, 'the notification is queued beside them');
    assert.deepEqual(nats.violations().slice(before), []);
  });

  it('a gateway cannot take a work item, queue any other kind, or purge or delete the work stream', async () => {
    const gwJs = jetstream(gateway, { timeout: 2000 });
    const gwJsm = await jetstreamManager(gateway, { timeout: 2000, checkAPI: false });
    const items = await workItems();
    await refused(`$JS.API.CONSUMER.CREATE.${WORK_STREAM}`, () => gwJsm.consumers.add(WORK_STREAM, { durable_name: 'thief', ack_policy: AckPolicy.Explicit }));
    await refused(`$JS.API.CONSUMER.MSG.NEXT.${WORK_STREAM}`, () => gateway.request(`$JS.API.CONSUMER.MSG.NEXT.${WORK_STREAM}.work_deliver`, JSON.stringify({ batch: 1 }), { timeout: 2000 }));
    await refused(`${WORK_SUBJECT_PREFIX}.send`, () => gwJs.publish(`${WORK_SUBJECT_PREFIX}.send`, JSON.stringify({ forged: true })));
    await refused(`$JS.API.STREAM.PURGE.${WORK_STREAM}`, () => gwJsm.streams.purge(WORK_STREAM));
    await refused(`$JS.API.STREAM.DELETE.${WORK_STREAM}`, () => gwJsm.streams.delete(WORK_STREAM));
    await refused(`$JS.API.STREAM.MSG.DELETE.${WORK_STREAM}`, () => gwJsm.streams.deleteMessage(WORK_STREAM, 1));
    assert.equal(await workItems(), items, 'a queued work item is gone');
  });

  it('a gateway cannot write, delete or purge a lease', async () => {
    const put = `$KV.${LEASES_BUCKET}.p.1`;
    await refused(put, () => gateway.request(put, 'gw-thief', { timeout: 2000 }));
    const del = headers();
    del.set('KV-Operation', 'DEL');
    await refused(put, () => gateway.request(put, '', { timeout: 2000, headers: del }));
    await refused(`$JS.API.STREAM.PURGE.KV_${LEASES_BUCKET}`, () => gateway.request(`$JS.API.STREAM.PURGE.KV_${LEASES_BUCKET}`, '{}', { timeout: 2000 }));
    await refused(`$JS.API.STREAM.INFO.KV_${LEASES_BUCKET}`, () => new Kvm(gateway).open(LEASES_BUCKET).then((kv) => kv.status()));
    assert.equal((await leases.get('p.1'))?.string(), 'rt-1', 'the lease was overwritten');
  });

  it("a gateway cannot listen to agent operations, read runtime nodes' replies or read the bus at large", async () => {
    const before = nats.violations().length;
    const subjects = [`${AGENT_SUBJECT}.>`, '_INBOX_node.>', '_INBOX.>', '>'];
    for (const subject of subjects) gateway.subscribe(subject);
    await gateway.flush().catch(() => {});
    await eventually(() => nats.violations().length >= before + subjects.length, { intervalMs: 50, message: 'a violation logged for each subject' });
    const lines = nats.violations().slice(before);
    for (const subject of subjects) assert.ok(lines.some((l) => /subscription/i.test(l) && l.includes(`"${subject}"`)), `${subject}: ${lines.join('\n')}`);
  });

  it('a runtime node takes and acks work, writes and deletes leases; it cannot purge the work stream either', async () => {
    await runtimeJsm.consumers.add(WORK_STREAM, { durable_name: 'work_all', filter_subject: `${WORK_SUBJECT_PREFIX}.>`, ack_policy: AckPolicy.Explicit });
    const consumer = await jetstream(runtime).consumers.get(WORK_STREAM, 'work_all');
    const taken = [];
    for (let n = await workItems(); n > 0; n--) {
      const item = await consumer.next({ expires: 5000 });
      taken.push(item?.json());
      await item!.ackAck();
    }
    assert.deepEqual(taken, [{ acknowledged: 'inbound' }, { messageId: 'msg_gateway_stored' }, { agentId: 'agent.inbox', eventId: 'evt_gateway_applied' }]);
    assert.equal(await workItems(), 0);
    await leases.put('p.1', 'rt-2');
    assert.equal((await leases.get('p.1'))?.string(), 'rt-2');
    await leases.delete('p.1');
    assert.equal((await leases.get('p.1'))?.operation, 'DEL');
    const before = nats.violations().length;
    await assert.rejects(runtimeJsm.streams.purge(WORK_STREAM));
    await eventually(() => nats.violations().length > before, { intervalMs: 50, message: 'a violation logged for the purge' });
    assert.ok(nats.violations().slice(before).some((l) => l.includes(`$JS.API.STREAM.PURGE.${WORK_STREAM}`)));
  });
});

