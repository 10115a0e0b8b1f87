import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PEM files made for one test run with `openssl`: a CA, a server certificate (for 127.0.0.1 and localhost by default), a client certificate. */
export interface TestTls {
  readonly dir: string;
  readonly caFile: string;
  /** The client certificate and its key. */
  readonly certFile: string;
  readonly keyFile: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
}

/**
 * Makes a CA, a server certificate (serverAuth and clientAuth, for routes too) and a client certificate
 * in a new temp dir. The server certificate names `serverNames` (openssl subjectAltName syntax).
 */
export function createTestTls(options: { serverNames?: string } = {}): TestTls {
  const dir = mkdtempSync(join(tmpdir(), 'sb-tls-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    openssl('req', '-x509', ...ec, '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=switchboard-test-ca');
    const sign = (name: string, subject: string, extensions: string) => {
      openssl('req', ...ec, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`, '-subj', subject);
      writeFileSync(join(dir, `${name}.ext`), extensions);
      openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`);
    };
    sign('server', '/CN=switchboard-test-server', `subjectAltName=${options.serverNames ?? 'IP:127.0.0.1,DNS:localhost'}\nextendedKeyUsage=serverAuth,clientAuth\n`);
    sign('client', '/CN=switchboard-client', 'extendedKeyUsage=clientAuth\n');
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`openssl could not make the test certificates (is openssl installed?): ${(err as { stderr?: Buffer }).stderr?.toString() ?? err}`);
  }
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    certFile: join(dir, 'client.pem'),
    keyFile: join(dir, 'client-key.pem'),
    serverCertFile: join(dir, 'server.pem'),
    serverKeyFile: join(dir, 'server-key.pem'),
  };
}
