import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { samplingAgent } from '../helpers/mcp-client.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { openStore, partitionOf, type Store } from '@switchboard/runtime/internal';
import { createTestDatabase, freePort, startNatsServer, type TestDatabase, type TestNatsServer, eventually } from '@switchboard/runtime/testing';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { startClusterProcess, type ClusterProcess } from '../helpers/cluster-process.js';
import { startLoadBalancer, type LoadBalancer } from '../helpers/load-balancer.js';

const ORCHESTRATOR = `sb_orch_${randomBytes(16).toString('hex')}`;
const CALLER = '+14155550123';

/** What the simulator's phone recorded of a call (the parts these tests read). */
interface Recording {
  callSid: string;
  status: string;
  mode: string | null;
  endedBy?: string;
  endedAt?: string;
  turns: { caller?: { text?: string }; agent: { text?: string; speechMs: number } }[];
  errors: string[];
}

interface Agent {
  agentId: string;
  token: string;
  number: string;
  secret?: string;
}

// The suite, start-up included, outlives the runner's per-test default on a loaded machine; each test has its own limit.
describe('cluster voice: the TwiML webhook on one gateway, the media WebSocket on the other', { timeout: 20 * 60_000 }, () => {
  let nats: TestNatsServer;
  let database: TestDatabase;
  let dataDir: string;
  let store: Store;
  let simulator: ClusterProcess;
  let simUrl: string;
  let balancer: LoadBalancer;
  let receiver: CallbackReceiver;
  const processes: ClusterProcess[] = [];
  const nodes: { process: ClusterProcess; probes: string }[] = [];
  const gateways: { name: string; url: string }[] = [];
  const agents: Record<string, Agent> = {};

  const phone = async (path: string, body: object): Promise<Record<string, unknown>> => {
    const res = await fetch(`${simUrl}/_sim/phone${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(90_000) });
    const json = (await res.json()) as Record<string, unknown>;
    assert.ok(res.ok, JSON.stringify(json));
    return json;
  };
  /** Rings the agent's number from the simulated phone and waits until the call is over. */
  const callAgent = async (agent: Agent, script: object): Promise<Recording> =>
    (await phone('/call?wait=true', { agentId: agent.agentId, from: CALLER, to: agent.number, mode: 'relay', script })).recording as Recording;
  /** The landing of every request through the balancer since `from`: webhooks and upgrades, by gateway. */
  const landings = (from: number) => balancer.log.slice(from).map((l) => `${l.kind} ${new URL(l.path, 'http://x').pathname.split('/').at(-1)} → ${gateways.find((g) => g.url === l.target)?.name}`);
  /** The call log row once the provider's status callback has completed it. */
  const completedCall = async (callSid: string) => {
    return eventually(
      async () => {
        const call = await store.calls.get(callSid);
        return call?.status === 'completed' && call;
      },
      { timeoutMs: 15_000, intervalMs: 100, message: `call ${callSid} completed` },
    );
  };

  before(async () => {
    nats = await startNatsServer();
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-cluster-voice-'));
    const ports = [await freePort(), await freePort()];
    gateways.push({ name: 'gw-1', url: `http://127.0.0.1:${ports[0]}` }, { name: 'gw-2', url: `http://127.0.0.1:${ports[1]}` });
    // Providers reach the cluster at one public address, the balancer; it picks the gateway.
    balancer = await startLoadBalancer({ http: gateways[0]!.url, upgrade: gateways[1]!.url });
    simulator = await startClusterProcess('simulator', ['simulator/src/cli.ts', '--port', '0', '--json', '--gateway-url', balancer.url], {}, /"credentials"/);
    const info = JSON.parse(simulator.output().split('\n').find((l) => l.startsWith('{'))!) as {
      url: string;
      baseUrls: Record<string, string>;
      credentials: { twilio: { accountSid: string; authToken: string }; elevenlabs: { apiKey: string }; deepgram: { apiKey: string } };
    };
    simUrl = info.url;
    receiver = await startCallbackReceiver(() => agents['voice-callback']?.secret);
    receiver.reply = (event) => {
      if (event.type !== 'call.turn') return {};
      const said = String(event.data.text);
      return /bye/i.test(said) ? { text: 'Goodbye!', end: true } : { text: `You said: ${said}` };
    };
    const env = {
      NATS_URL: nats.url,
      DATABASE_URL: database.url,
      SECRET_KEY: randomBytes(32).toString('hex'),
      PUBLIC_BASE_URL: balancer.url,
      ORCHESTRATOR_TOKEN: ORCHESTRATOR,
      DATA_DIR: dataDir,
      DEMO_MODE: 'false',
      TWILIO_ACCOUNT_SID: info.credentials.twilio.accountSid,
      TWILIO_AUTH_TOKEN: info.credentials.twilio.authToken,
      TWILIO_BASE_URL: info.baseUrls.twilio!,
      ELEVENLABS_API_KEY: info.credentials.elevenlabs.apiKey,
      ELEVENLABS_BASE_URL: info.baseUrls.elevenlabs!,
      DEEPGRAM_API_KEY: info.credentials.deepgram.apiKey,
      DEEPGRAM_BASE_URL: info.baseUrls.deepgram!,
      POOL_PHONE_NUMBERS: '+12025550170,+12025550171,+12025550172',
      VOICE_MODE: 'relay',
      CLUSTER_PARTITIONS: '16',
      CLUSTER_LEASE_TTL_MS: '1500',
    };
    nodes.push(
      ...(await Promise.all(
        ['rt-1', 'rt-2'].map(async (name) => {
          const port = await freePort();
          const started = await startClusterProcess(name, ['gateway/src/cli.ts', 'runtime'], { ...env, NODE_ID: name, HEALTH_PORT: String(port) }, /runtime node \S+ is running/);
          return { process: started, probes: `http://127.0.0.1:${port}` };
        }),
      )),
    );
    processes.push(...nodes.map((n) => n.process));
    for (const [i, gateway] of gateways.entries()) {
      processes.push(await startClusterProcess(gateway.name, ['gateway/src/cli.ts', 'gateway', '--port', String(ports[i])], { ...env, NODE_ID: gateway.name }, /API:\s+http/));
    }
    store = await openStore({ dataDir, databaseUrl: database.url });
    const auth = { authorization: `Bearer ${ORCHESTRATOR}`, 'content-type': 'application/json' };
    for (const agentId of ['voice-callback', 'voice-mcp', 'voice-nobody']) {
      const res = await fetch(`${gateways[0]!.url}/api/v1/provision`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ agentId, displayName: agentId, channels: ['voice'], greeting: `Hello from ${agentId}.`, ...(agentId === 'voice-callback' ? { callbackUrl: receiver.url } : {}) }),
      });
      const body = (await res.json()) as { securityToken: string; signingSecret?: string; channels: { voice: { address: string } } };
      assert.equal(res.status, 201, JSON.stringify(body));
      agents[agentId] = { agentId, token: body.securityToken, number: body.channels.voice.address, ...(body.signingSecret ? { secret: body.signingSecret } : {}) };
    }
  });

  after(async () => {
    await Promise.all(processes.map((p) => p.kill('SIGKILL')));
    await simulator?.kill('SIGKILL');
    await balancer?.close();
    await receiver?.close();
    await store?.close();
    await nats?.stop();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('an inbound relay call: webhook on gw-1, WebSocket on gw-2, turns answered by the callback URL; the call log and usage are in the store', async () => {
    balancer.routes = { http: gateways[0]!.url, upgrade: gateways[1]!.url };
    const from = balancer.log.length;
    const recording = await callAgent(agents['voice-callback']!, { steps: ['What time do you open?', 'Thanks, bye'], stayOnLine: true, replyTimeoutMs: 8000 });
    assert.deepEqual(recording.errors, []);
    assert.deepEqual(
      recording.turns.map((t) => t.agent.text),
      ['Hello from voice-callback.', 'You said: What time do you open?', 'Goodbye!'],
    );
    assert.equal(recording.endedBy, 'twiml-end', 'the agent ended the call');
    const landed = landings(from);
    assert.ok(landed.includes('http voice → gw-1') && landed.includes('upgrade voice-ws → gw-2'), landed.join(', '));
    const turns = receiver.events.filter((e) => e.event.type === 'call.turn' && e.event.data.callSid === recording.callSid);
    assert.deepEqual(
      turns.map((e) => e.event.data.text),
      ['What time do you open?', 'Thanks, bye'],
    );
    const call = await completedCall(recording.callSid);
    assert.deepEqual([call?.agentId, call?.direction, call?.mode, call?.status], ['voice-callback', 'inbound', 'relay', 'completed']);
    const usage = (await store.usage.listForAgent('voice-callback')).find((u) => u.externalId === recording.callSid && u.action === 'call_minute');
    assert.ok(usage, 'the call-minute usage row is written by the agent’s actor when the call completes');
  });

  it('an inbound relay call to an agent whose MCP session (with sampling) is on gw-1, WebSocket on gw-2: each turn is sampled across gateways', async () => {
    const agent = agents['voice-mcp']!;
    const { client, asked } = samplingAgent();
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateways[0]!.url}/mcp?agentId=${agent.agentId}`), { requestInit: { headers: { authorization: `Bearer ${agent.token}` } } }));
    try {
      balancer.routes = { http: gateways[0]!.url, upgrade: gateways[1]!.url };
      const recording = await callAgent(agent, { steps: ['Do you deliver on Sundays?'], replyTimeoutMs: 8000, quietMs: 300 });
      assert.deepEqual(recording.errors, []);
      assert.equal(recording.turns[0]!.agent.text, 'Hello from voice-mcp.', 'a session on another gateway makes the agent reachable: no answering machine');
      assert.equal(recording.turns[1]!.agent.text, 'Sampled answer to: Do you deliver on Sundays?');
      // And with the WebSocket on the gateway that holds the session, the turn is sampled there.
      balancer.routes = { http: gateways[1]!.url, upgrade: gateways[0]!.url };
      const local = await callAgent(agent, { steps: ['And on Mondays?'], replyTimeoutMs: 8000, quietMs: 300 });
      assert.equal(local.turns[1]!.agent.text, 'Sampled answer to: And on Mondays?');
      assert.deepEqual(asked, ['Do you deliver on Sundays?', 'And on Mondays?']);
    } finally {
      await client.close();
    }
  });

  it('an inbound call no one can answer (webhook on gw-2, WebSocket on gw-1) becomes a voicemail the agent’s actor stores', async () => {
    balancer.routes = { http: gateways[1]!.url, upgrade: gateways[0]!.url };
    const agent = agents['voice-nobody']!;
    const recording = await callAgent(agent, { steps: ['Please call me back about my order.'], replyTimeoutMs: 8000 });
    assert.deepEqual(recording.errors, []);
    assert.match(recording.turns[0]!.agent.text ?? '', /leave a message/);
    assert.match(recording.turns[1]!.agent.text ?? '', /pass your message on/);
    const waiting = (await (await fetch(`${gateways[1]!.url}/api/v1/waiting-messages?channel=voice`, { headers: { authorization: `Bearer ${agent.token}` } })).json()) as {
      messages: { reason: string; body: string; from: string }[];
    };
    assert.equal(waiting.messages[0]?.reason, 'voicemail', JSON.stringify(waiting));
    assert.match(waiting.messages[0]!.body, /Caller: Please call me back about my order\./);
    assert.equal(waiting.messages[0]!.from, CALLER);
  });

  it('an outbound stream call placed through gw-2: the answer webhook on gw-1, the media stream on gw-2 with speech-to-text and text-to-speech there', async () => {
    balancer.routes = { http: gateways[0]!.url, upgrade: gateways[1]!.url };
    const agent = agents['voice-callback']!;
    const callee = '+14155550999';
    await phone('/outbound', { match: callee, script: { steps: ['opening hours', 'that is all goodbye'], stayOnLine: true, replyTimeoutMs: 8000 } });
    const from = balancer.log.length;
    const res = await fetch(`${gateways[1]!.url}/api/v1/make-call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ to: callee, mode: 'stream', greeting: 'Hi, this is your stream call.' }),
    });
    const placed = (await res.json()) as { callSid: string };
    assert.equal(res.status, 200, JSON.stringify(placed));
    const recording = await eventually(
      async () => {
        const recording = (await (await fetch(`${simUrl}/_sim/phone/calls/${placed.callSid}`)).json()) as Recording;
        return recording.endedAt && recording;
      },
      { timeoutMs: 60_000, intervalMs: 250, message: 'the call ended' },
    );
    assert.ok(recording?.endedAt, 'the call ended');
    assert.deepEqual(recording.errors, []);
    assert.equal(recording.mode, 'stream');
    assert.ok(recording.turns[0]!.agent.speechMs > 500, `the greeting is heard as speech (${recording.turns[0]!.agent.speechMs} ms)`);
    assert.ok(recording.turns[1]!.agent.speechMs > 500, 'the reply is heard as speech');
    const landed = landings(from);
    assert.ok(landed.includes('http outbound-voice → gw-1') && landed.includes('upgrade voice-ws → gw-2'), landed.join(', '));
    const turns = receiver.events.filter((e) => e.event.type === 'call.turn' && e.event.data.callSid === placed.callSid).map((e) => e.event.data.text);
    assert.deepEqual(turns, ['opening hours', 'that is all goodbye']);
    const call = await completedCall(placed.callSid);
    assert.deepEqual([call?.direction, call?.mode, call?.status], ['outbound', 'stream', 'completed']);
  });
  it('the runtime node holding the agent is killed mid-call: the call goes on through its gateway, and the agent’s new node completes its log and usage', async () => {
    balancer.routes = { http: gateways[0]!.url, upgrade: gateways[1]!.url };
    const agent = agents['voice-callback']!;
    const partition = partitionOf(agent.agentId, 16);
    const holder = async () => {
      for (const node of nodes) {
        const health = (await (await fetch(`${node.probes}/health`)).json()) as { partitions: number[] };
        if (health.partitions.includes(partition)) return node;
      }
      return undefined;
    };
    const victim = await holder();
    assert.ok(victim, `no node holds partition ${partition}`);
    const call = callAgent(agent, { steps: ['First question', 'Second question', 'Thanks, bye'], stayOnLine: true, replyTimeoutMs: 8000 });
    // Once the caller has been greeted and asked once, the agent's node dies.
    await eventually(() => receiver.events.some((e) => e.event.type === 'call.turn' && e.event.data.text === 'First question'), { timeoutMs: 15_000, intervalMs: 50, message: 'the first turn' });
    await victim.process.kill('SIGKILL');
    const recording = await call;
    assert.deepEqual(recording.errors, []);
    assert.deepEqual(
      recording.turns.map((t) => t.agent.text),
      ['Hello from voice-callback.', 'You said: First question', 'You said: Second question', 'Goodbye!'],
      'every turn after the kill was answered: the call lives on its gateway, not on the node',
    );
    const survivor = nodes.find((n) => n !== victim)!;
    const health = (await (await fetch(`${survivor.probes}/health`)).json()) as { partitions: number[] };
    assert.ok(health.partitions.includes(partition), 'the surviving node took the agent over');
    const logged = await completedCall(recording.callSid);
    assert.equal(logged?.status, 'completed', 'the status callback reached the agent on its new node');
    const usage = (await store.usage.listForAgent(agent.agentId)).find((u) => u.externalId === recording.callSid && u.action === 'call_minute');
    assert.ok(usage, 'the call-minute usage row is written by the agent’s new node');
  });
});
