import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { callbackFetch, forbiddenAddress, forbiddenCallbackHost, ForbiddenAddressError, type AllAddressesLookup } from '../src/delivery/callback-address.js';
import { agentEvent, attemptCallback } from '../src/delivery/agent-events.js';
import { allowsPrivateNetworks } from '../src/modes.js';
import { newSigningSecret } from '../src/provisioning/provisioner.js';
import { checkSettings } from '../src/settings/load.js';

describe('callback addresses', () => {
  it('refuses every address outside the public internet, IPv4-mapped IPv6 judged as its IPv4', () => {
    const refused: Record<string, RegExp> = {
      '127.0.0.1': /loopback/,
      '127.1.2.3': /loopback/,
      '::1': /loopback/,
      '::ffff:127.0.0.1': /^127\.0\.0\.1, a loopback/,
      '::ffff:7f00:1': /^127\.0\.0\.1, a loopback/,
      '10.1.2.3': /private/,
      '172.16.0.1': /private/,
      '172.31.255.255': /private/,
      '192.168.1.1': /private/,
      'fd00:ec2::254': /private/,
      '169.254.169.254': /link-local/,
      '::ffff:169.254.169.254': /^169\.254\.169\.254, a link-local/,
      'fe80::1': /link-local/,
      '100.64.0.1': /carrier-grade NAT/,
      '100.100.100.200': /carrier-grade NAT/,
      '224.0.0.1': /multicast/,
      'ff02::1': /multicast/,
      '0.0.0.0': /unspecified/,
      '::': /unspecified/,
      '255.255.255.255': /broadcast/,
      '192.0.2.1': /reserved/,
      '2002:7f00:1::': /reserved/, // 6to4 wrapping 127.0.0.1
      '64:ff9b::7f00:1': /reserved/, // NAT64 of 127.0.0.1
    };
    for (const [address, why] of Object.entries(refused)) assert.match(forbiddenAddress(address) ?? 'allowed', why, address);
    for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(forbiddenAddress(address), undefined, address);
    }
  });

  it('judges a URL by the address its host names, in every form the URL parser accepts, and localhost names as loopback', () => {
    const host = (url: string) => forbiddenCallbackHost(new URL(url));
    assert.match(host('http://2130706433/') ?? '', /^127\.0\.0\.1, a loopback/);
    assert.match(host('https://0x7f.1/hook') ?? '', /^127\.0\.0\.1, a loopback/);
    assert.match(host('https://0177.0.0.1/') ?? '', /^127\.0\.0\.1, a loopback/);
    assert.match(host('https://[::ffff:127.0.0.1]:8443/') ?? '', /^127\.0\.0\.1, a loopback/);
    assert.match(host('https://[::1]/') ?? '', /loopback/);
    assert.match(host('https://0.0.0.0/') ?? '', /unspecified/);
    assert.match(host('https://169.254.169.254/latest/meta-data/') ?? '', /link-local/);
    assert.match(host('https://LOCALHOST./') ?? '', /loopback name/);
    assert.match(host('https://agent.localhost/') ?? '', /loopback name/);
    assert.equal(host('https://agent.example.com/hooks'), undefined);
    assert.equal(host('https://93.184.215.14/hooks'), undefined);
  });

  it('allows private networks in demo mode and outside production unless told, refuses them in production', () => {
    const allows = (raw: Record<string, string>) => allowsPrivateNetworks(checkSettings(raw));
    const provider = { TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`, TWILIO_AUTH_TOKEN: 'x'.repeat(32) };
    assert.equal(allows({ NODE_ENV: 'development' }), true);
    assert.equal(allows({ NODE_ENV: 'test', ...provider }), true);
    assert.equal(allows({ NODE_ENV: 'production', ...provider }), false);
    assert.equal(allows({ NODE_ENV: 'production', DEMO_MODE: 'true' }), true);
    assert.equal(allows({ NODE_ENV: 'production', DEMO_MODE: 'false' }), false);
    assert.equal(allows({ NODE_ENV: 'production', DEMO_MODE: 'false', CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true' }), true);
    assert.equal(allows({ NODE_ENV: 'development', CALLBACK_ALLOW_PRIVATE_NETWORKS: 'false' }), false);
  });
});

describe('callback connections', () => {
  // A loopback listener that counts the connections made to it: a refused callback opens none.
  let server: Server;
  let port = 0;
  let connections = 0;
  before(async () => {
    server = createServer((_req, res) => res.end('ok'));
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A resolver under the test's control: `callback.test` resolves to what `answer` says at the time. */
  let answer = '127.0.0.1';
  const lookups: string[] = [];
  const lookup: AllAddressesLookup = (hostname, _options, callback) => {
    lookups.push(hostname);
    queueMicrotask(() => callback(null, [{ address: answer, family: answer.includes(':') ? 6 : 4 }]));
  };
  const event = agentEvent('message.inbound', 'agent-1', { body: 'hi' });
  const attempt = (url: string, allowPrivateNetworks: boolean) =>
    attemptCallback(callbackFetch({ allowPrivateNetworks, lookup }), url, newSigningSecret(), event, 2000);

  it('refuses a name that resolves to loopback at connect time, without opening a connection', async () => {
    const before = connections;
    answer = '127.0.0.1';
    const result = await attempt(`http://callback.test:${port}/hook`, false);
    assert.equal(result.status, undefined);
    assert.match(result.error ?? '', /callback\.test resolves to 127\.0\.0\.1, a loopback address: not called, as CALLBACK_ALLOW_PRIVATE_NETWORKS is off/);
    assert.ok(lookups.includes('callback.test'));
    assert.equal(connections, before);
  });

  it('refuses a name that resolves to an IPv4-mapped loopback address the same way', async () => {
    const before = connections;
    answer = '::ffff:127.0.0.1';
    const result = await attempt(`http://callback.test:${port}/hook`, false);
    assert.match(result.error ?? '', /resolves to 127\.0\.0\.1, a loopback address/);
    assert.equal(connections, before);
  });

  it('refuses a literal internal address without resolving or connecting', async () => {
    const before = connections;
    await assert.rejects(callbackFetch({ allowPrivateNetworks: false, lookup })(`http://127.0.0.1:${port}/hook`, { method: 'POST' }), ForbiddenAddressError);
    const result = await attempt(`http://[::ffff:127.0.0.1]:${port}/hook`, false);
    assert.match(result.error ?? '', /^127\.0\.0\.1, a loopback address/);
    assert.equal(connections, before);
  });

  it('calls a loopback address when private networks are allowed', async () => {
    const before = connections;
    const result = await attempt(`http://127.0.0.1:${port}/hook`, true);
    assert.equal(result.status, 200);
    assert.equal(connections, before + 1);
  });
});
