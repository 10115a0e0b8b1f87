import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import twilio from 'twilio';
import { heapSnapshot, heapSnapshotOptions } from '../heap-snapshot.js';
import { residentMiB } from '../proc.js';
import { quantileMs } from '../paced.js';
import type { Scenario } from '../types.js';
import { provisionBenchAgent, simulatorCredentials, twilioSignedUrl } from './bench-agent.js';
import { openSse, type RawSseSession } from './sse-client.js';

const SESSIONS = Number(process.env.BENCH_MCP_SESSIONS ?? 10_000);
/** Sessions held open in the gate's short run: enough to be more than the agents', a few seconds to open. */
const SHORT_SESSIONS = 1_000;
const AGENTS = 50;
const INBOUND_RATE = 1000;
/**
 * Inbound webhooks per second in the gate's short run: one a loaded machine keeps up with, so that the
 * window's CPU is charged to notifications of the window rather than to a backlog (at 1,000/s on a
 * loaded 2-core machine, notifications fell seconds behind and CPU per notification doubled).
 */
const SHORT_INBOUND_RATE = 250;
const CUSTOMER = '+14155550123';
/**
 * `BENCH_MCP_HEAPSNAPSHOTS=<dir>`: the server writes a heap snapshot there with a third of the sessions
 * open and another with all of them, before the load; the difference over the sessions between is
 * what one session holds (`node scripts/heapsnapshot-top.mjs <first> <second> <sessions between>`).
 */
const SNAPSHOT_DIR = process.env.BENCH_MCP_HEAPSNAPSHOTS;

/**
 * Holds SESSIONS live MCP SSE sessions open (initialised, as a client does), reads the server's
 * resident memory, then sends signed inbound SMS at 1,000/s to AGENTS of them, evenly spaced, and
 * after the warm-up measures the time from the webhook leaving the harness to the notification
 * arriving on the agent's stream.
 */
export const mcpSessions: Scenario = {
  name: 'mcp-sessions',
  description: `${SESSIONS.toLocaleString('en-US')} concurrent MCP SSE sessions; inbound-to-notification latency at ${INBOUND_RATE}/s.`,
  target: { description: '10,000 sessions under 1 GiB server RSS; notification p99 < 5 ms at 1,000/s', maxP99Ms: 5 },
  async run(ctx) {
    const sessionCount = ctx.short ? SHORT_SESSIONS : SESSIONS;
    const inboundRate = ctx.short ? SHORT_INBOUND_RATE : INBOUND_RATE;
    if (SNAPSHOT_DIR) mkdirSync(SNAPSHOT_DIR, { recursive: true });
    const gateway = await ctx.gateway(SNAPSHOT_DIR ? { env: { NODE_OPTIONS: heapSnapshotOptions(SNAPSHOT_DIR) } } : {});
    let firstSnapshot = SNAPSHOT_DIR !== undefined;
    const team = await gateway.teamToken();
    const { hostname: host, port } = new URL(gateway.url);
    const run = randomBytes(3).toString('hex');
    /** An agent with its webhook path, and the URL its webhooks are signed for. */
    const provision = async (id: string) => {
      const path = `/webhooks/${id}/sms`;
      return { id, path, signedUrl: twilioSignedUrl(`${gateway.url}${path}`), ...(await provisionBenchAgent(gateway, id, ['sms'])) };
    };
    const agents: Awaited<ReturnType<typeof provision>>[] = [];
    for (let i = 0; i < AGENTS; i++) agents.push(await provision(`mcp-${run}-${i}`));
    const sessions: RawSseSession[] = [];
    ctx.defer(() => sessions.forEach((s) => s.close()));
    /** Initialises a session over POST /messages with the token it was opened with. */
    const initialise = async (session: RawSseSession, token: string) => {
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
      const post = (body: object) => fetch(`${gateway.url}/messages?sessionId=${session.sessionId}`, { method: 'POST', headers, body: JSON.stringify(body) });
      await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    };
    const snapshot = async (open: number) => {
      ctx.log(`mcp-sessions: ${open.toLocaleString('en-US')} sessions open, server RSS ${residentMiB(gateway.pid).toFixed(0)} MiB; heap snapshot`);
      await heapSnapshot(gateway.pid, gateway.url, SNAPSHOT_DIR!, ctx.log);
    };
    ctx.log(`mcp-sessions: no sessions open; server RSS ${residentMiB(gateway.pid).toFixed(0)} MiB`);
    const started = Date.now();
    const agentSessions = new Map<string, RawSseSession>();
    for (const agent of agents) {
      const session = await openSse(host, Number(port), `token=${agent.securityToken}&agentId=${agent.id}`);
      await initialise(session, agent.securityToken);
      sessions.push(session);
      agentSessions.set(agent.id, session);
    }
    for (let opened = AGENTS; opened < sessionCount; ) {
      const batch = Math.min(200, sessionCount - opened);
      const fresh = await Promise.all(Array.from({ length: batch }, () => openSse(host, Number(port), `token=${team}`)));
      await Promise.all(fresh.map((session) => initialise(session, team)));
      sessions.push(...fresh);
      // Resident memory at each thousand: its slope is what one session costs.
      if (Math.floor((opened + batch) / 1000) > Math.floor(opened / 1000)) {
        ctx.log(`mcp-sessions: ${(opened + batch).toLocaleString('en-US')} sessions open; server RSS ${residentMiB(gateway.pid).toFixed(0)} MiB`);
      }
      opened += batch;
      if (firstSnapshot && opened >= sessionCount / 3) {
        firstSnapshot = false;
        await snapshot(opened);
      }
    }
    const openSeconds = (Date.now() - started) / 1000;
    const rssMiB = residentMiB(gateway.pid);
    ctx.log(`mcp-sessions: ${sessions.length.toLocaleString('en-US')} sessions open in ${openSeconds.toFixed(1)} s; server RSS ${rssMiB.toFixed(0)} MiB`);
    if (SNAPSHOT_DIR) await snapshot(sessions.length);

    const { twilio: credentials } = await simulatorCredentials(gateway);
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    for (const session of agentSessions.values()) {
      session.onMessage = (message) => {
        const data = (message.params as { logger?: string; data?: { externalId?: string } } | undefined);
        if (data?.logger !== 'switchboard.inbound' || !data.data?.externalId) return;
        const at = sentAt.get(data.data.externalId);
        if (at !== undefined) latencies.push(performance.now() - at);
      };
    }
    // Sent evenly spaced after a warm-up (ctx.paced); only notifications of measured webhooks count.
    const warmup = Math.round(inboundRate * ctx.warmupSeconds);
    let sent = 0;
    const webhooks = await ctx.paced({
      label: `inbound at ${inboundRate.toLocaleString('en-US')}/s`,
      url: gateway.url,
      rate: inboundRate,
      cpu: { pid: gateway.pid, unit: 'notification' },
      next: () => {
        const i = sent++;
        const agent = agents[i % AGENTS]!;
        const sid = `SM${randomBytes(16).toString('hex')}`;
        const params = { MessageSid: sid, AccountSid: credentials.accountSid, From: CUSTOMER, To: agent.channels.sms!.address, Body: `n${i}`, SmsStatus: 'received' };
        const signature = twilio.getExpectedTwilioSignature(credentials.authToken, agent.signedUrl, params);
        if (i >= warmup) sentAt.set(sid, performance.now());
        return { method: 'POST', path: agent.path, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, body: new URLSearchParams(params).toString() };
      },
    });
    await new Promise((r) => setTimeout(r, 500));
    const total = sentAt.size;
    latencies.sort((a, b) => a - b);
    return [
      {
        label: `inbound→notification, ${sessions.length.toLocaleString('en-US')} sessions`,
        rate: latencies.length / webhooks.durationSeconds,
        p50Ms: quantileMs(latencies, 0.5),
        p99Ms: quantileMs(latencies, 0.99),
        responses: total,
        non2xx: webhooks.non2xx,
        socketErrors: webhooks.socketErrors,
        durationSeconds: webhooks.durationSeconds,
        connections: sessions.length,
        // The window's CPU (webhook in, notification out) per notification received.
        ...(webhooks.cpu ? { cpu: { ...webhooks.cpu, units: latencies.length } } : {}),
        notes: `server RSS ${rssMiB.toFixed(0)} MiB with ${sessions.length.toLocaleString('en-US')} sessions (target < 1024); ${latencies.length.toLocaleString('en-US')}/${total.toLocaleString('en-US')} notifications received`,
      },
    ];
  },
};
