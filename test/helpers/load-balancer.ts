import { createServer, request, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/** Where the balancer sends plain HTTP requests and where WebSocket upgrades (base URLs of gateways). */
export interface Routes {
  http: string;
  upgrade: string;
}

/** Where one request went. */
export interface Landing {
  readonly kind: 'http' | 'upgrade';
  readonly path: string;
  readonly target: string;
}

/** A loopback load balancer in front of gateways; `routes` may be changed between requests. */
export interface LoadBalancer {
  readonly url: string;
  routes: Routes;
  /** Every request forwarded, in order. */
  readonly log: Landing[];
  close(): Promise<void>;
}

/**
 * A load balancer as a cluster stands behind, on loopback: it forwards each HTTP request to
 * `routes.http` and each WebSocket upgrade to `routes.upgrade`, path, query and headers unchanged, so
 * a provider's webhook and the same call's media WebSocket land on different gateways on purpose.
 */
export async function startLoadBalancer(routes: Routes, port = 0): Promise<LoadBalancer> {
  const sockets = new Set<Socket>();
  const log: Landing[] = [];
  const server = createServer((req, res) => {
    log.push({ kind: 'http', path: req.url ?? '/', target: balancer.routes.http });
    const target = new URL(balancer.routes.http);
    const forward = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(forward);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (req: IncomingMessage, client: Socket, head: Buffer) => {
    log.push({ kind: 'upgrade', path: req.url ?? '/', target: balancer.routes.upgrade });
    const target = new URL(balancer.routes.upgrade);
    const upstream = connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const balancer: LoadBalancer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    routes,
    log,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return balancer;
}
