import { randomBytes } from 'node:crypto';
import type autocannon from 'autocannon';
import twilio from 'twilio';
import { startBareServer } from '../bare/start.js';
import type { BenchContext, CpuProbe, Measurement, Scenario } from '../types.js';
import { provisionBenchAgent, simulatorCredentials, storedMessageCount, twilioSignedUrl } from './bench-agent.js';

const CUSTOMER = '+14155550123';
const CONNECTIONS = 256;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Gives the next signed webhook each time it is called; `path` when it differs from the request's. */
export type WebhookSource = () => { path?: string; headers: Record<string, string>; body: string };

/**
 * Signed Twilio SMS webhooks, each with a unique MessageSid, for an agent with no session and no
 * callback URL: every message is verified, persisted (then a dead letter) before its 200. The load
 * generator signs each request with twilio's own function. Afterwards the harness counts the
 * acknowledged messages in the store. A second run at half the first run's rate, evenly spaced,
 * measures latency. The same load first goes to the floor (measureFloor) for comparison.
 */
export const ingest: Scenario = {
  name: 'ingest',
  description:
    'Signed Twilio SMS webhooks with unique MessageSids, persisted before the 200; acknowledged == stored is checked. Also measures the floor: the same load against a bare persisted webhook.',
  target: { description: '≥ 20,000 req/s; p99 < 10 ms at half that rate; every acknowledged message stored', minRate: 20_000 },
  async run(ctx) {
    const floor = await startFloor(ctx);
    const floorMax = await floor.max();
    const gateway = await ctx.gateway();
    const { twilio: credentials } = await simulatorCredentials(gateway);
    const agentId = `ingest-${randomBytes(3).toString('hex')}`;
    const agent = await provisionBenchAgent(gateway, agentId, ['sms']);
    const path = `/webhooks/${agentId}/sms`;
    const { full, paced } = await measureIngest(ctx, {
      url: gateway.url,
      path,
      webhooks: signedWebhooks(credentials, twilioSignedUrl(`${gateway.url}${path}`), agent.channels.sms!.address),
      cpu: { pid: gateway.pid, unit: 'webhook' },
      stored: () => storedMessageCount(gateway, agent.securityToken, 'sms'),
    });
    const floorPaced = await floor.paced(pacedRate(full.rate));
    return [floorMax, { ...full, floor: floorMax.label }, floorPaced, paced];
  },
};

/** The rate of the latency run: half the max rate, at least 100/s. */
function pacedRate(maxRate: number): number {
  return Math.max(100, Math.round(maxRate / 2));
}

/** Where `measureIngest` sends its webhooks, whose CPU it reads, and how it counts what was stored. */
export interface IngestTarget {
  /** Origin of the server under test. */
  readonly url: string;
  /** The request path, unless the webhooks name their own. */
  readonly path?: string;
  readonly webhooks: WebhookSource;
  readonly cpu: CpuProbe;
  /** Prefix of the rows' labels ("cluster: "). */
  readonly labelPrefix?: string;
  /** Messages in the store for the agents the webhooks are for. */
  stored(): Promise<number>;
  /** Resolves once the work queued by acknowledged webhooks is done, so that the CPU window holds it. */
  settled?(): Promise<void>;
}

/**
 * The ingest load against one target: the most it takes (256 connections), then half that rate,
 * evenly spaced, for latency; then the acknowledged count is checked against the store (throws when
 * something acknowledged is missing). Shared by `ingest` and `cluster`.
 */
export async function measureIngest(ctx: BenchContext, target: IngestTarget): Promise<{ full: Measurement; paced: Measurement; acknowledged: number }> {
  const prefix = target.labelPrefix ?? '';
  let acknowledged = 0;
  const onResponse = (status: number) => {
    if (status === 200) acknowledged += 1;
  };
  const settle = target.settled ? { beforeWindow: target.settled, afterWindow: target.settled } : {};
  const path = target.path ?? '/';
  // Providers deliver webhooks concurrently; group commit turns that concurrency into throughput.
  const full = await ctx.load({
    label: `${prefix}ingest (max rate)`,
    url: target.url,
    requests: [webhookRequest(path, target.webhooks, onResponse)],
    connections: CONNECTIONS,
    cpu: target.cpu,
    ...settle,
  });
  const half = pacedRate(full.rate);
  const paced = await ctx.paced({
    label: `${prefix}ingest at ${half.toLocaleString('en-US')}/s`,
    url: target.url,
    rate: half,
    next: () => ({ method: 'POST', path, ...target.webhooks() }),
    onResponse,
    cpu: target.cpu,
    ...settle,
  });
  const stored = await target.stored();
  // Stored may exceed acknowledged: requests still in flight when the load stops are stored, but their 200 is never counted.
  const check = `${acknowledged.toLocaleString('en-US')} acknowledged, ${stored.toLocaleString('en-US')} stored${stored >= acknowledged ? ', none missing' : ' — MISSING'}`;
  ctx.log(`${prefix}ingest: ${check}`);
  if (stored < acknowledged) throw new Error(`acknowledged messages are missing from the store: ${check}`);
  return {
    full: { ...full, notes: check },
    paced: {
      ...paced,
      ownTarget: { description: 'p99 < 10 ms at half the max rate', maxP99Ms: 10 },
      notes: 'sent evenly spaced (open loop); connections = most in flight at once',
    },
    acknowledged,
  };
}

/** A new signed webhook on each call: a new MessageSid, signed with twilio's own function for `signedUrl`. */
export function signedWebhooks(credentials: { accountSid: string; authToken: string }, signedUrl: string, to: string): WebhookSource {
  // Unique per run and per request, without a getrandom() call per request in the load generator.
  const sidPrefix = `SM${randomBytes(8).toString('hex')}`;
  let sequence = 0;
  return () => {
    sequence += 1;
    const sid = `${sidPrefix}${sequence.toString(16).padStart(16, '0')}`;
    const params = {
      MessageSid: sid,
      SmsSid: sid,
      AccountSid: credentials.accountSid,
      From: CUSTOMER,
      To: to,
      Body: `load message ${sequence}`,
      NumMedia: '0',
      NumSegments: '1',
      SmsStatus: 'received',
      ApiVersion: '2010-04-01',
    };
    const signature = twilio.getExpectedTwilioSignature(credentials.authToken, signedUrl, params);
    return { headers: { ...FORM, 'x-twilio-signature': signature }, body: new URLSearchParams(params).toString() };
  };
}

/** Signed webhooks for several agents in turn, each with its own path (`/webhooks/<agentId>/sms`). */
export function agentsWebhooks(
  credentials: { accountSid: string; authToken: string },
  origin: string,
  agents: readonly { agentId: string; address: string }[],
): WebhookSource {
  const sources = agents.map((agent) => {
    const path = `/webhooks/${agent.agentId}/sms`;
    const next = signedWebhooks(credentials, twilioSignedUrl(`${origin}${path}`), agent.address);
    return () => ({ path, ...next() });
  });
  let turn = 0;
  return () => sources[turn++ % sources.length]!();
}

export function webhookRequest(path: string, webhooks: WebhookSource, onResponse?: (status: number) => void): autocannon.Request {
  return { method: 'POST', path, headers: FORM, setupRequest: (req) => ({ ...req, ...webhooks() }), ...(onResponse ? { onResponse } : {}) };
}

/**
 * The floor (bare/persist-server.ts): uWS, validateRequest and a sqlite3 group commit of the message
 * and its dead letter, nothing else. `max` drives it with the same load as `ingest` (what ingest could
 * reach on this machine with this load generator if Switchboard itself cost nothing); `paced` sends
 * its webhooks evenly spaced at a given rate (Switchboard's latency run's), so that the paced p99 of
 * ingest can be read against what the disk and the box give the least work. The server stays up
 * between the two, idle, and stops after the scenario.
 */
async function startFloor(ctx: BenchContext): Promise<{ max(): Promise<Measurement>; paced(rate: number): Promise<Measurement> }> {
  const credentials = { accountSid: `AC${'0'.repeat(32)}`, authToken: randomBytes(16).toString('hex') };
  const { server, url } = await startBareServer('persist', { FLOOR_AUTH_TOKEN: credentials.authToken });
  ctx.defer(() => server.stop());
  const path = '/webhooks/floor/sms';
  const webhooks = signedWebhooks(credentials, twilioSignedUrl(`${url}${path}`), '+14155550100');
  const cpu = { pid: server.pid, unit: 'webhook', whose: 'floor server' };
  return {
    async max() {
      const measured = await ctx.load({
        label: 'ingest floor',
        url,
        requests: [webhookRequest(path, webhooks)],
        connections: CONNECTIONS,
        cpu,
        notes: 'bare uWS + validateRequest + sqlite3 group commit of message and dead letter: the most ingest could reach here',
      });
      return { ...measured, reference: true };
    },
    async paced(rate) {
      const measured = await ctx.paced({ label: `ingest floor at ${rate.toLocaleString('en-US')}/s`, url, rate, next: () => ({ method: 'POST', path, ...webhooks() }), cpu });
      return { ...measured, reference: true, notes: "the floor at ingest's paced rate, evenly spaced (open loop): the latency the least work gets here" };
    },
  };
}
