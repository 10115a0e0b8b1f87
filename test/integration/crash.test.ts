import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startCallbackReceiver } from '../helpers/callback-receiver.js';
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
    const env = { CALLBACK_RETRY_BASE_MS: '60000', CALLBACK_MAX_ATTEMPTS: '5', CALLBACK_TIMEOUT_MS: '1000' };
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
      server = await startServerProcess(['--data-dir', dataDir], { ...env, CALLBACK_RETRY_BASE_MS: '50' });
      const [delivered] = await receiver.waitFor(1, 10_000);
      assert.equal(delivered!.event.data.body, 'must not be lost');
      assert.equal(delivered!.event.data.from, CUSTOMER);
    } finally {
      await server?.stop();
      await receiver.close();
    }
  });
});
