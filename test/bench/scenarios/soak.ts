import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import twilio from 'twilio';
import { startCpuWindow } from '../cpu.js';
import { heapSnapshot, heapSnapshotOptions } from '../heap-snapshot.js';
import { startLiveGateway } from '../live-gateway.js';
import { memoryAround, sampleMemory } from '../memory-sampler.js';
import { quantileMs } from '../paced.js';
import type { Measurement, Scenario } from '../types.js';
import { provisionBenchAgent, storedMessageCount, twilioSignedUrl } from './bench-agent.js';
import { openSse, type RawSseSession } from './sse-client.js';

/** Minutes of mixed load; issue 33's goal (second-half RSS growth < 2 %) is judged on a 60-minute run. */
const MINUTES = positive('BENCH_SOAK_MINUTES', 10);
const INBOUND_RATE = positive('BENCH_SOAK_INBOUND_RATE', 60);
const SEND_RATE = positive('BENCH_SOAK_SEND_RATE', 30);
/** Agents, each with one live MCP client that receives its inbound messages and delivery receipts. */
const CLIENTS = 8;
const SAMPLE_EVERY_MS = 5_000;
const PROGRESS_EVERY_MS = 10_000;
/** How long after the last request a notification may still arrive before it counts as missing. */
const NOTIFY_GRACE_MS = 5_000;
const REQUEST_TIMEOUT_MS = 10_000;
const MAX_RSS_GROWTH = 0.02;
const CUSTOMER = '+14155550123';
const PHONE_NUMBERS = Array.from({ length: CLIENTS }, (_, i) => `+1202555${String(200 + i).padStart(4, '0')}`);

/**
 * Mixed load for BENCH_SOAK_MINUTES against the real server in live mode (the simulator in its own
 * process): signed inbound SMS to agents whose MCP clients are connected, sends from the same agents
 * (each followed by the simulator's status callbacks), evenly spaced, open loop. The server's RSS and
 * V8 heap are sampled throughout; the row gives memory at the start, middle and end, the growth over
 * the second half, and every error by kind. `BENCH_SOAK_HEAPSNAPSHOTS=<dir>` has the server write a
 * heap snapshot there at the middle (the load pauses for it) and after the load, to compare; such a
 * run's RSS is not judged.
 */
export const soak: Scenario = {
  name: 'soak',
  description: `Mixed load for ${MINUTES} min (BENCH_SOAK_MINUTES): ${INBOUND_RATE} signed inbound SMS/s to ${CLIENTS} agents with live MCP clients, ${SEND_RATE} sends/s; server RSS and heap sampled; nothing lost.`,
  // The harness judges errors only; the notes say whether RSS met its bound.
  target: { description: 'zero errors; RSS growth over the second half < 2 % at 60 min (in the notes)' },
  async run(ctx) {
    const snapshotDir = process.env.BENCH_SOAK_HEAPSNAPSHOTS;
    if (snapshotDir) mkdirSync(snapshotDir, { recursive: true });
    const gateway = await startLiveGateway(ctx, {
      name: 'soak',
      env: {
        POOL_PHONE_NUMBERS: PHONE_NUMBERS.join(','),
        ...(snapshotDir ? { NODE_OPTIONS: heapSnapshotOptions(snapshotDir) } : {}),
      },
    });
    const credentials = gateway.sim.credentials.twilio as { accountSid: string; authToken: string };
    const { hostname: host, port } = new URL(gateway.url);
    const run = randomBytes(3).toString('hex');

    const errors: Record<string, number> = {};
    const fail = (kind: string) => void (errors[kind] = (errors[kind] ?? 0) + 1);
    /** Inbound MessageSids sent and not yet notified: whether acknowledged, and when sent. */
    const awaiting = new Map<string, { acknowledged: boolean; sentAt: number }>();
    const notifyMs: number[] = [];
    let measuring = false;

    const agents: SoakAgent[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const id = `soak-${run}-${i}`;
      const provisioned = await provisionBenchAgent(gateway, id, ['sms']);
      const path = `/webhooks/${id}/sms`;
      const session = await openSse(host, Number(port), `token=${provisioned.securityToken}&agentId=${id}`);
      await initialise(gateway.url, session, provisioned.securityToken);
      session.onMessage = (message) => {
        const params = message.params as { logger?: string; data?: { externalId?: string } } | undefined;
        const sid = params?.logger === 'switchboard.inbound' ? params.data?.externalId : undefined;
        const waiting = sid && awaiting.get(sid);
        if (!waiting) return;
        awaiting.delete(sid);
        if (measuring) notifyMs.push(performance.now() - waiting.sentAt);
      };
      session.onClose = () => fail('MCP stream closed');
      ctx.defer(() => {
        session.onClose = () => undefined;
        session.close();
      });
      agents.push({ id, path, token: provisioned.securityToken, address: provisioned.channels.sms!.address, signedUrl: twilioSignedUrl(`${gateway.url}${path}`), session });
    }

    // Webhooks come from the provider, sends from the agents: a keep-alive pool each. A pool lets an idle
    // connection go as the server's Keep-Alive hint says (node reads the hint only in an agent with an
    // idle time-out of its own; 60 s here, so the hint decides): a pool that keeps it until the server
    // closes it gets a reset now and then when it reuses it just as the server closes it (a client's fault).
    const providerPool = new http.Agent({ keepAlive: true, timeout: 60_000 });
    const agentPool = new http.Agent({ keepAlive: true, timeout: 60_000 });
    ctx.defer(() => {
      providerPool.destroy();
      agentPool.destroy();
    });
    const counts = { inboundAcknowledged: 0, sendsAccepted: 0 };
    const latencies = { inbound: [] as number[], send: [] as number[] };
    const inFlight = new Set<Promise<void>>();
    let inbound = 0;
    let sends = 0;

    const postInbound = async () => {
      const agent = agents[inbound++ % CLIENTS]!;
      const sid = `SM${randomBytes(16).toString('hex')}`;
      const params = { MessageSid: sid, AccountSid: credentials.accountSid, From: CUSTOMER, To: agent.address, Body: `soak ${inbound}`, SmsStatus: 'received' };
      const signature = twilio.getExpectedTwilioSignature(credentials.authToken, agent.signedUrl, params);
      const started = performance.now();
      awaiting.set(sid, { acknowledged: false, sentAt: started });
      const outcome = await post(providerPool, gateway.url, agent.path, { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, new URLSearchParams(params).toString());
      if (typeof outcome === 'number' && outcome >= 200 && outcome < 300) {
        counts.inboundAcknowledged += 1;
        if (measuring) latencies.inbound.push(performance.now() - started);
        const waiting = awaiting.get(sid);
        if (waiting) waiting.acknowledged = true;
      } else {
        awaiting.delete(sid);
        fail(`inbound ${outcome}`);
        ctx.log(`soak: inbound ${sid} failed: ${outcome} at ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      }
    };
    const postSend = async () => {
      const agent = agents[sends++ % CLIENTS]!;
      const started = performance.now();
      const body = JSON.stringify({ channel: 'sms', to: CUSTOMER, body: `soak send ${sends}` });
      const outcome = await post(agentPool, gateway.url, '/api/v1/send-message', { 'content-type': 'application/json', authorization: `Bearer ${agent.token}` }, body);
      if (typeof outcome === 'number' && outcome >= 200 && outcome < 300) {
        counts.sendsAccepted += 1;
        if (measuring) latencies.send.push(performance.now() - started);
      } else {
        fail(`send ${outcome}`);
        ctx.log(`soak: send failed: ${outcome} at ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      }
    };
    const track = (request: Promise<void>) => {
      inFlight.add(request);
      void request.finally(() => inFlight.delete(request));
    };

    /** Sends both streams evenly spaced, open loop, for `seconds`. */
    const drive = async (seconds: number, onTick?: (elapsed: number) => void) => {
      const start = performance.now();
      const firstInbound = inbound;
      const firstSend = sends;
      for (;;) {
        const elapsed = (performance.now() - start) / 1000;
        if (elapsed >= seconds) break;
        while (inbound - firstInbound < Math.floor(elapsed * INBOUND_RATE) + 1) track(postInbound());
        while (sends - firstSend < Math.floor(elapsed * SEND_RATE) + 1) track(postSend());
        onTick?.(elapsed);
        await new Promise((r) => setTimeout(r, 1));
      }
    };

    let t0 = performance.now();
    ctx.log(`soak: warm-up ${ctx.warmupSeconds} s`);
    await drive(ctx.warmupSeconds);
    const seconds = MINUTES * 60;
    ctx.log(`soak: ${MINUTES} min of ${INBOUND_RATE} inbound/s + ${SEND_RATE} sends/s to ${CLIENTS} agents with live MCP clients`);
    measuring = true;
    t0 = performance.now();
    const memory = sampleMemory(gateway.pid, gateway.url, SAMPLE_EVERY_MS);
    await memory.take();
    const cpu = startCpuWindow(gateway.pid, 'operation', 'server');
    const workAtStart = counts.inboundAcknowledged + counts.sendsAccepted;
    let nextProgress = PROGRESS_EVERY_MS / 1000;
    const progress = (elapsed: number) => {
      if (elapsed < nextProgress) return;
      nextProgress += PROGRESS_EVERY_MS / 1000;
      const last = memory.samples.at(-1)!;
      const errorText = Object.entries(errors).map(([kind, n]) => `${kind}×${n}`).join(' ') || 'none';
      ctx.log(`soak: ${fmtClock(elapsed)} RSS ${last.rssMiB.toFixed(0)} MiB (anon ${last.rssAnonMiB.toFixed(0)}), heap ${last.heapUsedMiB.toFixed(1)} MiB, ${awaiting.size} awaiting; errors ${errorText}`);
    };
    if (snapshotDir) {
      // A snapshot stops the server for seconds and leaves RSS higher: the load pauses for it, and
      // such a run's RSS figures are not the server's as it runs.
      await drive(seconds / 2, progress);
      await Promise.all(inFlight);
      await heapSnapshot(gateway.pid, gateway.url, snapshotDir, ctx.log);
      const offset = seconds / 2;
      await drive(seconds / 2, (elapsed) => progress(offset + elapsed));
    } else {
      await drive(seconds, progress);
    }
    await Promise.all(inFlight);
    const work = counts.inboundAcknowledged + counts.sendsAccepted - workAtStart;
    const cpuUsed = cpu.end(work);
    await memory.take();
    memory.stop();
    const elapsed = (performance.now() - t0) / 1000;

    // Every acknowledged inbound message reaches its agent's live client, and is stored (with every accepted send).
    await new Promise((r) => setTimeout(r, NOTIFY_GRACE_MS));
    for (const { acknowledged } of awaiting.values()) if (acknowledged) fail('notification missing');
    const stored = (await Promise.all(agents.map((a) => storedMessageCount(gateway, a.token, 'sms')))).reduce((x, y) => x + y, 0);
    const expected = counts.inboundAcknowledged + counts.sendsAccepted;
    if (stored < expected) errors['acknowledged not stored'] = expected - stored;
    if (snapshotDir) await heapSnapshot(gateway.pid, gateway.url, snapshotDir, ctx.log);

    const window = Math.min(30, seconds / 10);
    const start = memoryAround(memory.samples, 0, window);
    const middle = memoryAround(memory.samples, seconds / 2, window);
    const end = memoryAround(memory.samples, seconds, window);
    const rssGrowth = end.rssMiB / middle.rssMiB - 1;
    const heapGrowth = end.heapFloorMiB / middle.heapFloorMiB - 1;
    const socketErrors = Object.entries(errors).filter(([kind]) => /^(inbound|send) [A-Z]/.test(kind)).reduce((n, [, c]) => n + c, 0);
    const byKind = Object.fromEntries(Object.entries(errors).filter(([kind]) => !/^(inbound|send) [A-Z]/.test(kind)));
    const all = [...latencies.inbound, ...latencies.send].sort((a, b) => a - b);
    latencies.inbound.sort((a, b) => a - b);
    latencies.send.sort((a, b) => a - b);
    notifyMs.sort((a, b) => a - b);
    const row: Measurement = {
      label: `soak ${MINUTES} min: ${INBOUND_RATE} inbound/s + ${SEND_RATE} sends/s, ${CLIENTS} MCP clients`,
      rate: work / elapsed,
      p50Ms: quantileMs(all, 0.5),
      p99Ms: quantileMs(all, 0.99),
      responses: all.length + Object.values(byKind).reduce((n, c) => n + c, 0),
      non2xx: byKind,
      socketErrors,
      durationSeconds: elapsed,
      connections: CLIENTS,
      cpu: cpuUsed,
      notes: [
        `RSS ${mib(start.rssMiB)} → ${mib(middle.rssMiB)} → ${mib(end.rssMiB)} MiB (start, middle, end; anonymous ${mib(start.rssAnonMiB)} → ${mib(middle.rssAnonMiB)} → ${mib(end.rssAnonMiB)}); second half ${pct(rssGrowth)} (target < ${pct(MAX_RSS_GROWTH)}${snapshotDir ? ': not judged, heap snapshots taken' : rssGrowth < MAX_RSS_GROWTH ? ', met' : ', MISSED'})`,
        `V8 heap in use (floor) ${mib(start.heapFloorMiB)} → ${mib(middle.heapFloorMiB)} → ${mib(end.heapFloorMiB)} MiB, second half ${pct(heapGrowth)}; external ${mib(start.externalMiB)} → ${mib(end.externalMiB)} MiB; ${start.metricSeries} → ${end.metricSeries} metric series`,
        `${counts.inboundAcknowledged.toLocaleString('en-US')} inbound acknowledged (p50 ${quantileMs(latencies.inbound, 0.5)} ms, p99 ${quantileMs(latencies.inbound, 0.99)} ms), ${counts.sendsAccepted.toLocaleString('en-US')} sends accepted (p50 ${quantileMs(latencies.send, 0.5)} ms, p99 ${quantileMs(latencies.send, 0.99)} ms), incl. warm-up; ${stored.toLocaleString('en-US')} stored`,
        `notification after the webhook p50 ${quantileMs(notifyMs, 0.5)} ms, p99 ${quantileMs(notifyMs, 0.99)} ms`,
        Object.keys(errors).length ? `errors by kind: ${Object.entries(errors).map(([kind, n]) => `${kind}×${n}`).join(', ')}` : 'no errors',
      ].join('; '),
    };
    return [row];
  },
};

/** An agent of the run with its live MCP client. */
interface SoakAgent {
  readonly id: string;
  readonly path: string;
  readonly token: string;
  readonly address: string;
  readonly signedUrl: string;
  readonly session: RawSseSession;
}

/** Initialises an MCP session over POST /messages as a client does. */
async function initialise(origin: string, session: RawSseSession, token: string): Promise<void> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const post = (body: object) => fetch(`${origin}/messages?sessionId=${session.sessionId}`, { method: 'POST', headers, body: JSON.stringify(body) });
  await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'soak', version: '1' } } });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

/** POSTs over `pool`; resolves with the status, or with the socket error's code when no answer came. */
function post(pool: http.Agent, origin: string, path: string, headers: Record<string, string>, body: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.request(`${origin}${path}`, { method: 'POST', agent: pool, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'RESPONSE_ERROR'));
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(Object.assign(new Error('no answer in time'), { code: 'TIMEOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end(body);
  });
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a number > 0, got "${raw}".`);
  return value;
}

const mib = (v: number) => v.toFixed(v < 10 ? 1 : 0);
const pct = (v: number) => `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)} %`;
const fmtClock = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
