import { createServer } from 'node:net';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';

/**
 * Why a port could not be opened, in the same words and code on both adapters. A port in use is
 * `CONFLICT`: most often another Switchboard (a forgotten one, a second checkout) already serves there,
 * and two servers on one port would split the traffic between two stores.
 */
export function listenFailure(host: string, port: number, errno: string | undefined, cause?: unknown): SwitchboardError {
  const where = `${host}:${port}`;
  const options = cause === undefined ? {} : { cause };
  if (errno === 'EADDRINUSE') {
    return new SwitchboardError(
      ErrorCodes.CONFLICT,
      `Cannot listen on ${where}: port in use. Another Switchboard (or another program) may be serving there; stop it, or pick another port with --port (PORT).`,
      options,
    );
  }
  const reason =
    errno === 'EACCES'
      ? 'permission denied (ports below 1024 need privileges; pick another with --port)'
      : errno === 'EADDRNOTAVAIL'
        ? `no interface has the address ${host} (check --host or HOST)`
        : (errno ?? 'the reason is unknown');
  return new SwitchboardError(ErrorCodes.UNAVAILABLE, `Cannot listen on ${where}: ${reason}.`, options);
}

/**
 * The errno of binding `host:port`, learnt by binding it with node:net and letting go at once, for
 * an adapter (uWS) that reports a failed listen only as `false`. Undefined when the bind succeeds now.
 */
export function bindError(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}
