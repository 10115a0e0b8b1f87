import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { eventually } from '@switchboard/runtime/testing';
import { startCallbackReceiver } from '../helpers/callback-receiver.js';
import { startClusterProcess, type ClusterProcess } from '../helpers/cluster-process.js';
import { startServerProcess, type ServerProcess } from '../helpers/process.js';

const CUSTOMER = '+14155550123';

async function json<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

describe('nothing acknowledged is lost when the process is killed', () => {
  it('an inbound message acknowledged to the provider survives kill -9 and is delivered after restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-crash-'));
    let secret: string | undefined;
    const receiver = await startCallbackReceiver(() => secret);
    // Slow retries: the message is still being retried when the process dies.
    const env = { CALLBACK_RETRY_SCHEDULE: '0,60s,60s,60s,60s', CALLBACK_TIMEOUT_MS: '1000' };
    let server: ServerProcess | undefined = await startServerProcess(['--data-dir', dataDir], env);
    try {
      const orchestrator = /Orchestrator token \(shown once; store it now\): (\S+)/.exec(server.output())![1]!;
      const simUrl = /Simulator: (\S+)\/_sim/.exec(server.output())![1]!;
      const auth = { authorization: `Bearer ${orchestrator}`, 'content-type': 'application/json' };
      const agent = await json<{ securityToken: string; channels: { sms: { address: string } } }>(
        await fetch(`${server.url}/api/v1/provision`, { method: 'POST', headers: auth, body: JSON.stringify({ agentId: 'durable', displayName: 'd', channels: ['sms'] }) }),
      );
      const callback = await json<{ signingSecret: string }>(
        await fetch(`${server.url}/api/v1/callback-url`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${agent.securityToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ callbackUrl: receiver.url }),
        }),
      );
      secret = callback.signingSecret;
      receiver.status = 503;

      const inbound = await json<{ status: number }>(
        await fetch(`${simUrl}/_sim/inbound/sms`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ agentId: 'durable', from: CUSTOMER, to: agent.channels.sms.address, body: 'must not be lost' }),
        }),
      );
      assert.equal(inbound.status, 200, 'the gateway acknowledged the webhook');
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(receiver.events.length, 0);
      assert.equal(await server.stop('SIGKILL'), null);

      receiver.status = 200;
      server = await startServerProcess(['--data-dir', dataDir], { ...env, CALLBACK_RETRY_SCHEDULE: '0,50,50,50,50' });
      const [delivered] = await receiver.waitFor(1, 10_000);
      assert.equal(delivered!.event.data.body, 'must not be lost');
      assert.equal(delivered!.event.data.from, CUSTOMER);
    } finally {
      await server?.stop();
      await receiver.close();
    }
  });

  it('a send stored when the process is killed during its provider call is finished after restart, once at the provider, and its Idempotency-Key answers it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-crash-send-'));
    // The provider outlives the server here, as a real one would: the simulator runs in its own process.
    const simulator: ClusterProcess = await startClusterProcess('simulator', ['simulator/src/cli.ts', '--port', '0', '--json'], {}, /"credentials"/);
    const info = JSON.parse(simulator.output().split('\n').find((l) => l.startsWith('{'))!) as {
      url: string;
      baseUrls: Record<string, string>;
      credentials: { twilio: { accountSid: string; authToken: string } };
    };
    const env = {
      DEMO_MODE: 'false',
      TWILIO_ACCOUNT_SID: info.credentials.twilio.accountSid,
      TWILIO_AUTH_TOKEN: info.credentials.twilio.authToken,
      TWILIO_BASE_URL: info.baseUrls.twilio!,
      POOL_PHONE_NUMBERS: '+12025550100',
    };
    let server: ServerProcess | undefined = await startServerProcess(['--data-dir', dataDir], env);
    try {
      const orchestrator = /Orchestrator token \(shown once; store it now\): (\S+)/.exec(server.output())![1]!;
      const auth = { authorization: `Bearer ${orchestrator}`, 'content-type': 'application/json' };
      const provisioned = await fetch(`${server.url}/api/v1/provision`, { method: 'POST', headers: auth, body: JSON.stringify({ agentId: 'sender', displayName: 's', channels: ['sms'] }) });
      assert.equal(provisioned.status, 201);
      const { securityToken } = await json<{ securityToken: string }>(provisioned);
      // The provider stores the message a second after it is asked, and the server dies before it answers.
      await fetch(`${info.url}/_sim/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'twilio', method: 'POST', pathIncludes: '/Messages.json', latencyMs: 1000 }),
      });
      const send = (url: string) =>
        fetch(`${url}/api/v1/send-message`, {
          method: 'POST',
          headers: { authorization: `Bearer ${securityToken}`, 'content-type': 'application/json', 'idempotency-key': 'crash-send-1' },
          body: JSON.stringify({ channel: 'sms', to: CUSTOMER, body: 'sent once, whatever happens' }),
        });
      const first = send(server.url).then(
        (r) => r.status,
        () => 0,
      );
      await new Promise((r) => setTimeout(r, 400));
      assert.equal(await server.stop('SIGKILL'), null);
      assert.equal(await first, 0, 'the killed server answered the send');

      server = await startServerProcess(['--data-dir', dataDir], env);
      // The repeat waits (409, Retry-After) while the restarted server finishes the send, then gets its answer.
      let waited = 0;
      let withoutRetryAfter = 0;
      const { url } = server;
      const answer = await eventually(
        async () => {
          const res = await send(url);
          if (res.status !== 409) return res;
          if (!res.headers.get('retry-after')) withoutRetryAfter++;
          waited++;
          await res.arrayBuffer();
          return undefined;
        },
        { timeoutMs: 20_000, intervalMs: 250, message: () => `the repeat to be answered other than 409 (${waited} answers were 409)` },
      );
      assert.equal(withoutRetryAfter, 0, 'a key in progress says when to retry');
      const body = await json<{ messageId: string; externalId: string }>(answer);
      assert.equal(answer.status, 200, `the repeat got ${answer.status}: ${JSON.stringify(body)}`);
      assert.equal(answer.headers.get('idempotent-replayed'), 'true', 'the repeat is answered from the key, not sent again');
      const atProvider = (await json<{ messages: { id: string; body: string }[] }>(await fetch(`${info.url}/_sim/messages?provider=twilio`))).messages.filter(
        (m) => m.body === 'sent once, whatever happens',
      );
      assert.deepEqual(
        atProvider.map((m) => m.id),
        [body.externalId],
        'the provider holds the message exactly once, under the id the repeat answered',
      );
      const log = await json<{ messages: { id: string; externalId: string | null }[] }>(
        await fetch(`${server.url}/admin/api/messages?direction=outbound`, { headers: { authorization: `Bearer ${orchestrator}` } }),
      );
      assert.deepEqual(log.messages.map((m) => [m.id, m.externalId]), [[body.messageId, body.externalId]], 'one message stored, finished with its provider id');
      console.log(`embedded, killed during a provider call: the send finished after restart; the repeat waited ${waited} time(s) (409), then got its answer`);
    } finally {
      await server?.stop();
      await simulator.kill('SIGKILL');
    }
  });

  it("the inbox after kill -9 under signed inbound load: from its acknowledged cursor each agent reads every acknowledged message once, in order per conversation, none of another agent's", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-crash-inbox-'));
    let server: ServerProcess | undefined = await startServerProcess(['--data-dir', dataDir]);
    try {
      const orchestrator = /Orchestrator token \(shown once; store it now\): (\S+)/.exec(server.output())![1]!;
      const simUrl = /Simulator: (\S+)\/_sim/.exec(server.output())![1]!;
      const agents: { agentId: string; securityToken: string; channels: { sms: { address: string } } }[] = [];
      for (const agentId of ['inbox-k1', 'inbox-k2']) {
        const res = await fetch(`${server.url}/api/v1/provision`, {
          method: 'POST',
          headers: { authorization: `Bearer ${orchestrator}`, 'content-type': 'application/json' },
          body: JSON.stringify({ agentId, displayName: agentId, channels: ['sms'] }),
        });
        assert.equal(res.status, 201);
        agents.push(await json(res));
      }
      type Page = { entries: { cursor: number; agentId: string; counterpart: string; payload: { body: string } }[]; nextCursor: number; hasMore: boolean; ackedCursor: number };
      /** Every entry of the agent's inbox after its acknowledged cursor, page by page. */
      const unread = async (url: string, token: string) => {
        const entries: Page['entries'] = [];
        for (let after: number | undefined; ; ) {
          const res = await fetch(`${url}/api/v1/inbox?limit=50${after === undefined ? '' : `&after=${after}`}`, { headers: { authorization: `Bearer ${token}` } });
          assert.equal(res.status, 200);
          const page = await json<Page>(res);
          entries.push(...page.entries);
          if (!page.hasMore) return entries;
          after = page.nextCursor;
        }
      };

      // Four senders, each its own conversation with one agent, each sending in sequence: a 200 is an acknowledgement.
      const acked: string[][] = [[], [], [], []];
      let total = 0;
      let killed = false;
      const sender = async (w: number) => {
        const agent = agents[w % 2]!;
        for (let i = 0; !killed; i++) {
          const body = `kill-9 ${w} ${i}`;
          const res = await fetch(`${simUrl}/_sim/inbound/sms`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ agentId: agent.agentId, from: `+1415555010${w}`, to: agent.channels.sms.address, body }),
          }).then((r) => json<{ status: number }>(r), () => undefined);
          if (res?.status === 200) {
            acked[w]!.push(body);
            total++;
          } else if (!killed) await new Promise((r) => setTimeout(r, 20));
        }
      };
      const load = Promise.all([0, 1, 2, 3].map(sender));
      const until = (count: number) => eventually(() => total >= count, { timeoutMs: 60_000, intervalMs: 10, message: () => `${count} inbound messages acknowledged (${total} were)` });
      // Half-way, the first agent reads what it has and acknowledges it.
      await until(40);
      const readBefore = await unread(server.url, agents[0]!.securityToken);
      const ack = await fetch(`${server.url}/api/v1/inbox/ack`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agents[0]!.securityToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ upTo: readBefore.at(-1)!.cursor }),
      });
      assert.equal(ack.status, 200);
      await until(100);
      assert.equal(await server.stop('SIGKILL'), null);
      killed = true;
      await load;

      server = await startServerProcess(['--data-dir', dataDir]);
      for (const [a, agent] of agents.entries()) {
        const after = await unread(server.url, agent.securityToken);
        const seen = [...(a === 0 ? readBefore : []), ...after];
        assert.ok(seen.every((e) => e.agentId === agent.agentId), 'an entry of another agent');
        const cursors = seen.map((e) => e.cursor);
        assert.deepEqual(cursors, [...new Set(cursors)].sort((x, y) => x - y), 'cursors strictly increasing, none twice');
        const bodies = seen.map((e) => e.payload.body);
        assert.equal(new Set(bodies).size, bodies.length, 'a message twice');
        for (const w of [a, a + 2]) {
          // What was stored but not answered when the process died may be there too; nothing acknowledged is missing or out of order.
          const answered = new Set(acked[w]);
          const conversation = seen.filter((e) => e.counterpart === `+1415555010${w}` && answered.has(e.payload.body)).map((e) => e.payload.body);
          assert.deepEqual(conversation, acked[w], `conversation ${w}: every acknowledged message, in order`);
        }
      }
      console.log(`embedded, kill -9 under inbound load: ${total} webhooks acknowledged (${readBefore.length} read and acknowledged before); every one in its agent's inbox once, in order`);
    } finally {
      await server?.stop();
    }
  });
});
