import { randomBytes } from 'node:crypto';
import type autocannon from 'autocannon';
import twilio from 'twilio';
import type { Scenario } from '../types.js';
import { provisionBenchAgent, simulatorCredentials, storedMessageCount, twilioSignedUrl } from './bench-agent.js';

const CUSTOMER = '+14155550123';
const CONNECTIONS = 256;

/**
 * Signed Twilio SMS webhooks, each with a unique MessageSid, for an agent with no session and no
 * callback URL: every message is verified, persisted (then a dead letter) before its 200. The load
 * generator signs each request with twilio's own function. Afterwards the harness counts the
 * acknowledged messages in the store. A second run at half the first run's rate, evenly spaced,
 * measures latency.
 */
export const ingest: Scenario = {
  name: 'ingest',
  description: 'Signed Twilio SMS webhooks with unique MessageSids, persisted before the 200; acknowledged == stored is checked.',
  target: { description: '≥ 20,000 req/s; p99 < 10 ms at half that rate; every acknowledged message stored', minRate: 20_000 },
  async run(ctx) {
    const gateway = await ctx.gateway();
    const { twilio: credentials } = await simulatorCredentials(gateway);
    const agentId = `ingest-${randomBytes(3).toString('hex')}`;
    // Unique per run and per request, without a getrandom() call per request in the load generator.
    const sidPrefix = `SM${randomBytes(8).toString('hex')}`;
    const agent = await provisionBenchAgent(gateway, agentId, ['sms']);
    const path = `/webhooks/${agentId}/sms`;
    const publicUrl = twilioSignedUrl(`${gateway.url}${path}`);
    let acknowledged = 0;
    let sequence = 0;
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    /** The next signed webhook: a new MessageSid, signed with twilio's own function. */
    const nextWebhook = () => {
      sequence += 1;
      const sid = `${sidPrefix}${sequence.toString(16).padStart(16, '0')}`;
      const params = {
        MessageSid: sid,
        SmsSid: sid,
        AccountSid: credentials.accountSid,
        From: CUSTOMER,
        To: agent.channels.sms!.address,
        Body: `load message ${sequence}`,
        NumMedia: '0',
        NumSegments: '1',
        SmsStatus: 'received',
        ApiVersion: '2010-04-01',
      };
      const signature = twilio.getExpectedTwilioSignature(credentials.authToken, publicUrl, params);
      return { headers: { ...headers, 'x-twilio-signature': signature }, body: new URLSearchParams(params).toString() };
    };
    const onResponse = (status: number) => {
      if (status === 200) acknowledged += 1;
    };
    const request: autocannon.Request = {
      method: 'POST',
      path,
      headers,
      setupRequest: (req) => ({ ...req, ...nextWebhook() }),
      onResponse,
    };
    // Providers deliver webhooks concurrently; group commit turns that concurrency into throughput.
    const full = await ctx.load({ label: 'ingest (max rate)', url: gateway.url, requests: [request], connections: CONNECTIONS });
    const half = Math.max(100, Math.round(full.rate / 2));
    const paced = await ctx.paced({
      label: `ingest at ${half.toLocaleString('en-US')}/s`,
      url: gateway.url,
      rate: half,
      next: () => ({ method: 'POST', path, ...nextWebhook() }),
      onResponse,
    });
    const stored = await storedMessageCount(gateway, agent.securityToken, 'sms');
    // Stored may exceed acknowledged: requests still in flight when the load stops are stored, but their 200 is never counted.
    const check = `${acknowledged.toLocaleString('en-US')} acknowledged, ${stored.toLocaleString('en-US')} stored${stored >= acknowledged ? ', none missing' : ' — MISSING'}`;
    ctx.log(`ingest: ${check}`);
    if (stored < acknowledged) throw new Error(`acknowledged messages are missing from the store: ${check}`);
    return [
      { ...full, notes: check },
      {
        ...paced,
        ownTarget: { description: 'p99 < 10 ms at half the max rate', maxP99Ms: 10 },
        notes: 'sent evenly spaced (open loop); connections = most in flight at once',
      },
    ];
  },
};
