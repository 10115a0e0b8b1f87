import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { hasErrorCode } from '@switchboard/sdk';
import { natsConnectionOptions, natsUrlForLog } from '../src/cluster/nats-connection.js';
import { NO_NATS_SETTINGS } from '../src/testing/secure-nats.js';

const none = { ...NO_NATS_SETTINGS, NATS_URL: 'nats://127.0.0.1:4222' };

describe('NATS connection options from the settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-nats-opts-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('lists every server of NATS_URL and sets neither credentials nor TLS by default', () => {
    const options = natsConnectionOptions({ ...none, NATS_URL: 'nats://a:4222, nats://b' });
    assert.deepEqual(options, { servers: ['a:4222', 'b:4222'] });
  });

  it('moves credentials out of the URL; a bare name is a token; tls:// requires TLS', () => {
    assert.deepEqual(natsConnectionOptions({ ...none, NATS_URL: 'tls://us%40r:p%3Ass@h:4333' }), { servers: ['h:4333'], user: 'us@r', pass: 'p:ss', tls: {} });
    assert.deepEqual(natsConnectionOptions({ ...none, NATS_URL: 'nats://s3cr3t@h:4222' }), { servers: ['h:4222'], token: 's3cr3t' });
  });

  it('passes user and password, TLS files, and an NKey seed read at connect', () => {
    const ca = file('ca.pem', 'ca');
    const options = natsConnectionOptions({ ...none, NATS_USER: 'gateway', NATS_PASSWORD: 'pw', NATS_TLS_CA_FILE: ca, NATS_TLS_CERT_FILE: ca, NATS_TLS_KEY_FILE: ca });
    assert.equal(options.user, 'gateway');
    assert.equal(options.pass, 'pw');
    assert.deepEqual(options.tls, { caFile: ca, certFile: ca, keyFile: ca });
    const seeded = natsConnectionOptions({ ...none, NATS_NKEY_SEED_FILE: file('seed', 'SUAM2ZRNMJVNOLCMMQXMLGMJQKM2VLBJ3T3MB6LQ5B6HF2ZVJIWEMQOJSI\n') });
    assert.equal(typeof seeded.authenticator, 'function');
  });

  it('refuses two ways to authenticate, a password without a user, a certificate without its key, and an unreadable file, naming each', () => {
    const refused = (settings: Partial<typeof none>, pattern: RegExp) =>
      assert.throws(() => natsConnectionOptions({ ...none, ...settings }), (err: unknown) => hasErrorCode(err, 'VALIDATION_FAILED') && pattern.test(String((err as { message?: unknown }).message)));
    refused({ NATS_USER: 'u', NATS_PASSWORD: 'p', NATS_TOKEN: 't' }, /NATS_USER and NATS_TOKEN/);
    refused({ NATS_PASSWORD: 'p' }, /NATS_PASSWORD needs NATS_USER/);
    refused({ NATS_TLS_CERT_FILE: file('c.pem', 'c') }, /NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE/);
    refused({ NATS_CREDS_FILE: join(dir, 'missing.creds') }, /NATS_CREDS_FILE: cannot read .*ENOENT/);
  });

  it('prints NATS_URL without user names and passwords', () => {
    assert.equal(natsUrlForLog('nats://u:p@a:4222, tls://tok@b:4222,nats://c:4222'), 'nats://a:4222,tls://b:4222,nats://c:4222');
  });
});
