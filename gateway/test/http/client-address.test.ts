import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientAddress } from '../../src/http/client-address.js';

describe('clientAddress (TRUSTED_PROXIES)', () => {
  it('trusts no proxy when empty: the peer is the client, whatever X-Forwarded-For says', () => {
    const resolve = clientAddress(' ');
    assert.equal(resolve('203.0.113.5', '198.51.100.1'), '203.0.113.5');
  });

  it('reads X-Forwarded-For only from a trusted peer, taking the right-most entry that is not a trusted proxy', () => {
    const resolve = clientAddress('10.0.0.0/8, 192.0.2.10');
    assert.equal(resolve('203.0.113.5', '198.51.100.1'), '203.0.113.5', 'an untrusted peer');
    assert.equal(resolve('10.1.1.1', '198.51.100.1'), '198.51.100.1');
    assert.equal(resolve('10.1.1.1', '6.6.6.6, 198.51.100.1, 192.0.2.10'), '198.51.100.1', 'proxies chained, a forged left entry');
    assert.equal(resolve('10.1.1.1', undefined), '10.1.1.1', 'no header');
    assert.equal(resolve('10.1.1.1', '10.2.2.2'), '10.2.2.2', 'only proxies: the left-most');
  });

  it('matches IPv6 and IPv4-mapped peers', () => {
    const resolve = clientAddress('::1, loopback');
    assert.equal(resolve('::1', '2001:db8::7'), '2001:db8::7');
    assert.equal(resolve('::ffff:127.0.0.1', '198.51.100.1'), '198.51.100.1');
    assert.equal(resolve('0000:0000:0000:0000:0000:0000:0000:0001', '198.51.100.2'), '198.51.100.2', "uWS's long IPv6 form");
  });

  it('refuses an entry that is not an address or range with VALIDATION_FAILED', () => {
    assert.throws(() => clientAddress('10.0.0.0/8, proxy.example'), (err: { code?: string; message: string }) => {
      assert.equal(err.code, 'VALIDATION_FAILED');
      assert.match(err.message, /TRUSTED_PROXIES/);
      return true;
    });
    assert.throws(() => clientAddress('10.0.0.0/33'), { code: 'VALIDATION_FAILED' });
  });
});
