import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '@switchboard/runtime/testing';

const CUSTOMER = '+14155550142';

interface Attempt {
  url: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  outcome: string;
}

/**
 * Callback URLs that point inside the server's network, with CALLBACK_ALLOW_PRIVATE_NETWORKS off as
 * in production: refused when saved, by the address the URL names, and refused at connect time, by
 * the address the name resolves to then, before any connection opens.
 */
describe('callback URLs to internal addresses', () => {
  let t: TestGateway;
  // A loopback listener standing for an internal service: it counts every connection made to it.
  let internal: Server;
  let port = 0;
  let connections = 0;

  before(async () => {
    internal = createServer((_req, res) => res.end('internal'));
    internal.on('connection', () => connections++);
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
    port = (internal.address() as AddressInfo).port;
    t = await startTestGateway({ CALLBACK_ALLOW_PRIVATE_NETWORKS: 'false', CALLBACK_RETRY_SCHEDULE: '0' });
  });
  after(async () => {
    await t.close();
    await new Promise<void>((resolve) => internal.close(() => resolve()));
  });

  const refusedUrls = [
    ['loopback', 'http://127.0.0.1:PORT/hook'],
    ['loopback', 'https://127.0.0.1/hook'],
    ['loopback', 'http://2130706433/hook'],
    ['loopback', 'https://2130706433/hook'],
    ['loopback', 'https://0x7f.1/hook'],
    ['loopback', 'https://[::1]/hook'],
    ['loopback', 'https://[::ffff:127.0.0.1]/hook'],
    ['loopback name', 'https://localhost/hook'],
    ['unspecified', 'https://0.0.0.0/hook'],
    ['link-local', 'https://169.254.169.254/latest/meta-data/'],
    ['link-local', 'https://[::ffff:169.254.169.254]/latest/meta-data/'],
    ['link-local', 'https://[fe80::1]/hook'],
    ['private-network', 'https://10.0.0.1/hook'],
    ['private-network', 'https://172.16.0.1/hook'],
    ['private-network', 'https://192.168.1.1/hook'],
    ['private-network', 'https://[fd00:ec2::254]/hook'],
    ['carrier-grade NAT', 'https://100.64.0.1/hook'],
    ['multicast', 'https://224.0.0.1/hook'],
  ] as const;

  it('refuses each internal address class when the callback URL is set, with the contract error and what to do', async () => {
    const agent = await provisionAgent(t, 'ssrf-set', ['sms']);
    for (const [kind, template] of refusedUrls) {
      const callbackUrl = template.replace('PORT', String(port));
      const res = await t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl } });
      const body = (await res.json()) as { error: string; code: string };
      assert.equal(res.status, 400, callbackUrl);
      assert.equal(body.code, 'VALIDATION_FAILED', callbackUrl);
      assert.ok(body.error.includes(kind), `${callbackUrl}: ${body.error}`);
      assert.match(body.error, /use a public address, or set CALLBACK_ALLOW_PRIVATE_NETWORKS=true/, callbackUrl);
    }
    const got = await t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl: 'https://agent.example.com/hooks' } });
    assert.equal(got.status, 200, 'a public name is saved; it is judged again at each connection');
    assert.equal(connections, 0);
  });

  it('refuses them at provisioning too, and provisions nothing', async () => {
    const res = await t.call('POST', '/api/v1/provision', {
      token: t.teamToken,
      json: { agentId: 'ssrf-provision', displayName: 'ssrf', channels: ['sms'], callbackUrl: 'https://169.254.169.254/latest/meta-data/' },
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { code: string }).code, 'VALIDATION_FAILED');
    const again = await t.call('POST', '/api/v1/provision', { token: t.teamToken, json: { agentId: 'ssrf-provision', displayName: 'ssrf', channels: ['sms'] } });
    assert.equal(again.status, 201, 'the refused provisioning took nothing');
  });

  it('refuses at connect time a name that resolves to loopback, logs the refusal, and opens no connection', async () => {
    const agent = await provisionAgent(t, 'ssrf-connect', ['sms']);
    // A URL stored before this rule applied (or whose name was public when saved): the runtime's own
    // operation stores it as the gateway would have, without the gateway's check.
    const callbackUrl = `http://localhost:${port}/hook`;
    await t.gateway.runtime.inspect.agents.call('setCallbackUrl', 'ssrf-connect', { callbackUrl });
    const inbound = await t.sim.inbound.sms({ agentId: 'ssrf-connect', from: CUSTOMER, to: agent.channels.sms!.address, body: 'to an internal address' });
    assert.equal(inbound.status, 200);
    const attempts = await eventually(
      async () => {
        const res = await t.call('GET', '/admin/api/agents/ssrf-connect/callback-log', { token: t.orchestratorToken });
        const log = (await res.json()) as { attempts: Attempt[] };
        return log.attempts.length > 0 && log.attempts;
      },
      { timeoutMs: 15_000, intervalMs: 50, message: 'the refused attempt is logged' },
    );
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0]!.url, callbackUrl);
    assert.equal(attempts[0]!.statusCode, null);
    assert.match(attempts[0]!.error ?? '', /localhost resolves to (127\.0\.0\.1|::1), a loopback address: not called, as CALLBACK_ALLOW_PRIVATE_NETWORKS is off/);
    assert.equal(connections, 0, 'no connection reached the internal listener');
  });
});

