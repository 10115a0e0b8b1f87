import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAccount, createOperator, createUser } from '@nats-io/nkeys';
import { encodeAccount, encodeOperator, encodeUser, fmtCreds } from '@nats-io/jwt';
import { connect, type ConnectionOptions } from '@nats-io/transport-node';
import { natsConnectionOptions } from '../src/cluster/nats-connection.js';
import { freePort, startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';
import { NO_NATS_SETTINGS } from '../src/testing/secure-nats.js';

const none = NO_NATS_SETTINGS;

/** Connects with `options`, proves the connection carries a request and its reply, and closes it. */
async function roundTrip(options: ConnectionOptions): Promise<void> {
  const nc = await connect(options);
  try {
    nc.subscribe('auth.echo', { callback: (_err, msg) => void msg.respond(msg.data) });
    const reply = await nc.request('auth.echo', 'ping', { timeout: 5000 });
    assert.equal(reply.string(), 'ping');
  } finally {
    await nc.close();
  }
}

/** Asserts the server refuses the connection as an authorization failure. */
async function refused(options: ConnectionOptions): Promise<void> {
  await assert.rejects(
    connect({ ...options, reconnect: false }),
    (err: unknown) => /authoriz|authentic/i.test(`${(err as Error).message} ${String((err as { code?: unknown }).code)}`),
  );
}

/** A nats-server on loopback run with `config` (its port line is added here). */
async function serverWith(dir: string, config: string): Promise<TestNatsServer> {
  const port = await freePort();
  const file = join(dir, `nats-${port}.conf`);
  writeFileSync(file, `listen: 127.0.0.1:${port}\n${config}`);
  return startNatsServer({ port, configFile: file });
}

describe('NATS authentication against a real nats-server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-nats-auth-'));
  const file = (name: string, text: string | Uint8Array) => {
    const path = join(dir, name);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('NKey seed (NATS_NKEY_SEED_FILE)', () => {
    const user = createUser();
    let server: TestNatsServer;
    before(async () => {
      server = await serverWith(dir, `authorization { users = [{ nkey: ${user.getPublicKey()} }] }\n`);
    });
    after(() => server?.stop());

    it('connects with the seed of the configured user', async () => {
      const seedFile = file('user.nk', `${new TextDecoder().decode(user.getSeed())}\n`);
      await roundTrip(natsConnectionOptions({ ...none, NATS_URL: server.url, NATS_NKEY_SEED_FILE: seedFile }));
    });

    it('refuses a client without a seed and one with another seed', async () => {
      await refused(natsConnectionOptions({ ...none, NATS_URL: server.url }));
      const stranger = file('stranger.nk', new TextDecoder().decode(createUser().getSeed()));
      await refused(natsConnectionOptions({ ...none, NATS_URL: server.url, NATS_NKEY_SEED_FILE: stranger }));
    });
  });

  describe('creds file with operator-signed JWTs (NATS_CREDS_FILE)', () => {
    const operator = createOperator();
    const account = createAccount();
    let server: TestNatsServer;
    before(async () => {
      const operatorJwt = file('operator.jwt', await encodeOperator('switchboard-test', operator));
      // A missing limit reads as zero in nats-server; -1 is no limit, as nsc writes it.
      const unlimited = { conn: -1, subs: -1, data: -1, payload: -1, imports: -1, exports: -1, leaf: -1, wildcards: true };
      const accountJwt = await encodeAccount('switchboard', account, { limits: unlimited }, { signer: operator });
      server = await serverWith(
        dir,
        `operator: ${JSON.stringify(operatorJwt)}\nresolver: MEMORY\nresolver_preload: { ${account.getPublicKey()}: ${JSON.stringify(accountJwt)} }\n`,
      );
    });
    after(() => server?.stop());

    const credsOf = async (name: string, issuer: typeof account) => {
      const user = createUser();
      return file(`${name}.creds`, fmtCreds(await encodeUser(name, user, issuer), user));
    };

    it('connects with a user of the preloaded account', async () => {
      const creds = await credsOf('runtime', account);
      await roundTrip(natsConnectionOptions({ ...none, NATS_URL: server.url, NATS_CREDS_FILE: creds }));
    });

    it('refuses a client without creds and a user of an account the operator did not sign', async () => {
      await refused(natsConnectionOptions({ ...none, NATS_URL: server.url }));
      const stranger = await credsOf('stranger', createAccount());
      await refused(natsConnectionOptions({ ...none, NATS_URL: server.url, NATS_CREDS_FILE: stranger }));
    });
  });
});
