import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';

/** A TCP proxy on loopback in front of one process's connection to a server, which a test cuts and heals. */
export interface TcpProxy {
  /** The port to dial instead of the server's. */
  readonly port: number;
  /** Drops every connection through it and refuses new ones until {@link restore}. */
  cut(): void;
  /** Drops every connection and stops listening, so that a new one is refused by the system (ECONNREFUSED) until {@link restore}. */
  refuse(): Promise<void>;
  restore(): Promise<void> | void;
  close(): Promise<void>;
}

/** Starts a proxy to `127.0.0.1:<target()>` (asked at each new connection, so the server may move to another port). */
export async function startTcpProxy(target: () => number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let open = true;
  const server: Server = createServer((client) => {
    if (!open) return void client.destroy();
    const upstream = tcpConnect(target(), '127.0.0.1');
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      sockets.add(a);
      a.pipe(b);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        sockets.delete(a);
        b.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    port,
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
    },
    refuse() {
      open = false;
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async restore() {
      open = true;
      if (!server.listening) await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return server.listening ? new Promise((resolve) => server.close(() => resolve())) : Promise.resolve();
    },
  };
}
