import { randomBytes } from 'node:crypto';
import type autocannon from 'autocannon';
import { startBareServer } from '../bare/start.js';
import type { BenchContext, Measurement, Scenario } from '../types.js';
import { provisionBenchAgent, simulatorCredentials, twilioSignedUrl } from './bench-agent.js';
import { signedWebhooks, webhookRequest } from './ingest.js';

/** Entries in the inbox the reads and acknowledgements work on. */
const ENTRIES = 5_000;
const PAGE = 50;
const CONNECTIONS = 32;

/**
 * The agent inbox: what it adds to ingest, and how fast an agent reads and acknowledges it.
 * - Cost on ingest: the persisted-webhook floor of `ingest`, once as it is and once appending each
 *   message's inbox entry with Switchboard's own statements, with the same load in the same run; the
 *   difference in server CPU per webhook is the inbox's.
 * - Reads: `GET /api/v1/inbox` pages of 50 from random cursors of a 5,000-entry inbox.
 * - Acknowledgements: `POST /api/v1/inbox/ack`, each a step further (each runs in the agent's mailbox).
 */
export const inbox: Scenario = {
  name: 'inbox',
  description: "The agent inbox: its cost on ingest (the floor with and without the inbox's statements, same run), then reads of 50-entry pages and acknowledgements.",
  async run(ctx) {
    // The gate's short run reads only the reads row: the cost on ingest and the acknowledgements are left out.
    const cost = ctx.short ? [] : await costOnIngest(ctx);
    const gateway = await ctx.gateway();
    const { twilio: credentials } = await simulatorCredentials(gateway);
    const agentId = `inbox-${randomBytes(3).toString('hex')}`;
    const agent = await provisionBenchAgent(gateway, agentId, ['sms']);
    const path = `/webhooks/${agentId}/sms`;
    await seed(gateway.url, path, signedWebhooks(credentials, twilioSignedUrl(`${gateway.url}${path}`), agent.channels.sms!.address));
    const auth = { authorization: `Bearer ${agent.securityToken}` };

    const reads = await ctx.load({
      label: `inbox read (${PAGE} entries a page)`,
      url: gateway.url,
      connections: CONNECTIONS,
      requests: [
        {
          method: 'GET',
          path: '/api/v1/inbox',
          headers: auth,
          setupRequest: (req: autocannon.Request) => ({ ...req, path: `/api/v1/inbox?limit=${PAGE}&after=${Math.floor(Math.random() * (ENTRIES - PAGE))}` }),
        },
      ],
      cpu: { pid: gateway.pid, unit: 'read' },
      notes: `a ${ENTRIES.toLocaleString('en-US')}-entry inbox, pages from random cursors`,
    });
    if (ctx.short) return [reads];
    let upTo = 0;
    const acks = await ctx.load({
      label: 'inbox acknowledge',
      url: gateway.url,
      connections: CONNECTIONS,
      requests: [
        {
          method: 'POST',
          path: '/api/v1/inbox/ack',
          headers: { ...auth, 'content-type': 'application/json' },
          setupRequest: (req: autocannon.Request) => ({ ...req, body: JSON.stringify({ upTo: (upTo++ % ENTRIES) + 1 }) }),
        },
      ],
      cpu: { pid: gateway.pid, unit: 'acknowledgement' },
      notes: 'each a step further, in the agent’s mailbox',
    });
    return [...cost, reads, acks];
  },
};

/** The persisted-webhook floor without and with the inbox's statements: the rows, the second against the first. */
async function costOnIngest(ctx: BenchContext): Promise<Measurement[]> {
  const plain = await floor(ctx, 'ingest floor', {});
  const withInbox = await floor(ctx, 'ingest floor + inbox entries', { FLOOR_INBOX: '1' });
  const added = (withInbox.cpu?.cpuSeconds ?? 0) / Math.max(1, withInbox.cpu?.units ?? 1) - (plain.cpu?.cpuSeconds ?? 0) / Math.max(1, plain.cpu?.units ?? 1);
  const costNote = `the inbox adds ${Math.round(added * 1e6)} µs of server CPU per webhook to the floor; rate ratio ${(withInbox.rate / plain.rate).toFixed(2)}`;
  ctx.log(`inbox: ${costNote}`);
  return [plain, { ...withInbox, floor: plain.label, notes: costNote }];
}

/** The persisted-webhook floor under ingest's load, with `env` (FLOOR_INBOX to append inbox entries). */
async function floor(ctx: BenchContext, label: string, env: Record<string, string>): Promise<Measurement> {
  const credentials = { accountSid: `AC${'0'.repeat(32)}`, authToken: randomBytes(16).toString('hex') };
  const { server, url } = await startBareServer('persist', { FLOOR_AUTH_TOKEN: credentials.authToken, ...env });
  try {
    const path = '/webhooks/floor/sms';
    const measured = await ctx.load({
      label,
      url,
      requests: [webhookRequest(path, signedWebhooks(credentials, twilioSignedUrl(`${url}${path}`), '+14155550100'))],
      connections: 256,
      cpu: { pid: server.pid, unit: 'webhook', whose: 'floor server' },
    });
    return { ...measured, reference: true };
  } finally {
    await server.stop();
  }
}

/** Fills the agent's inbox with ENTRIES signed webhooks, 64 at a time. */
async function seed(origin: string, path: string, webhooks: ReturnType<typeof signedWebhooks>): Promise<void> {
  let sent = 0;
  const worker = async () => {
    while (sent < ENTRIES) {
      sent += 1;
      const { headers, body } = webhooks();
      const res = await fetch(`${origin}${path}`, { method: 'POST', headers, body });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`seeding the inbox: a webhook was answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
}
