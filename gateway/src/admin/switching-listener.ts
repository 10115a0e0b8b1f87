import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { GatewayApp, HandledRequest } from '../http/app.js';
import type { HttpAdapter, ListenOptions, Listener } from '../http/adapter.js';
import { STARTING } from '../http/answers.js';
import { peerIsClient, type ClientAddress } from '../http/client-address.js';
import type { Exchange } from '../http/exchange.js';
import type { ExchangeHandler, ServerWebSocket, SocketRoutes, WebSocketRoute } from '../http/socket-routes.js';
import type { HttpRequest } from '../http/types.js';

/** How `startGateway` binds its port: straight on the adapter, or through a {@link SwitchingListener}. */
export type ListenFunction = (adapter: HttpAdapter, app: GatewayApp, options: ListenOptions) => Promise<Listener>;

const RESTARTING = 1012;

/** A socket a generation accepted, seen by its route with the route's own data. */
interface Pinned {
  readonly generation: Generation;
  readonly route: WebSocketRoute<unknown>;
  readonly view: ServerWebSocket<unknown>;
}

/** One server generation's routes behind the shared socket. */
class Generation {
  readonly exchanges = new Map<string, ExchangeHandler>();
  readonly webSockets = new Map<string, WebSocketRoute<unknown>>();
  readonly sockets = new Set<ServerWebSocket<unknown>>();
  inFlight = 0;
  idle: (() => void) | undefined;
  constructor(
    readonly app: GatewayApp,
    readonly clientAddress: ClientAddress,
  ) {}
}

/**
 * Keeps one listening socket for the life of the process while server generations come and go
 * behind it (the admin API's deploy). Closing a listening socket and binding it again can fail for
 * a minute (TIME_WAIT of connections the server closed), so the port is never let go; between
 * generations every request answers 503 `starting` with Retry-After. Works on either HTTP adapter:
 * it registers on the adapter's {@link SocketRoutes} once and forwards to the current generation.
 */
export class SwitchingListener {
  #real: Listener | undefined;
  #routes: SocketRoutes | undefined;
  #current: Generation | undefined;
  readonly #registered = new Set<string>();

  /** A {@link ListenFunction} for `startGateway`: the first call binds the port, later ones reuse it. */
  readonly listen: ListenFunction = async (adapter, app, options) => {
    const generation = new Generation(app, options.clientAddress ?? peerIsClient);
    if (!this.#real) {
      this.#real = await adapter.listen(this.#dispatcher(), {
        ...options,
        starting: true,
        // Each generation's TRUSTED_PROXIES, though the socket is the first one's.
        clientAddress: (peer, forwardedFor) => (this.#current?.clientAddress ?? peerIsClient)(peer, forwardedFor),
        before: (routes) => {
          this.#routes = routes;
        },
      });
      this.#real.ready();
    }
    options.before?.(this.#front(generation));
    return this.#virtual(generation);
  };

  /** Closes the real socket: the process is stopping. */
  async close(graceMs: number): Promise<void> {
    await this.#real?.close(graceMs);
  }

  /** A GatewayApp stand-in for the adapter: forwards to the current generation, or answers 503. */
  #dispatcher(): GatewayApp {
    const self = this;
    return {
      bodyLimit(method: string, path: string) {
        return self.#current?.app.bodyLimit(method, path) ?? 1_048_576;
      },
      async handle(request: HttpRequest): Promise<HandledRequest> {
        const generation = self.#current;
        if (!generation) return { status: STARTING.status, headers: STARTING.headers, body: JSON.parse(STARTING.body), route: 'starting' };
        generation.inFlight++;
        try {
          return await generation.app.handle(request);
        } finally {
          if (--generation.inFlight === 0) generation.idle?.();
        }
      },
    } as unknown as GatewayApp;
  }

  /** What a generation's socket routes register on: recorded per generation, served by the current one. */
  #front(generation: Generation): SocketRoutes {
    return {
      route: (method, path, handler, options) => {
        const key = `${method} ${path}`;
        generation.exchanges.set(key, handler);
        if (this.#registered.has(key)) return;
        this.#registered.add(key);
        this.#routes!.route(
          method,
          path,
          (exchange: Exchange) => {
            const current = this.#current?.exchanges.get(key);
            if (current) current(exchange);
            else exchange.answer(STARTING.status, STARTING.headers, STARTING.body);
          },
          options,
        );
      },
      webSocket: (pattern, route) => {
        generation.webSockets.set(pattern, route as WebSocketRoute<unknown>);
        const key = `ws ${pattern}`;
        if (this.#registered.has(key)) return;
        this.#registered.add(key);
        this.#routes!.webSocket<Pinned>(pattern, this.#dispatchSocket(pattern, route as WebSocketRoute<unknown>));
      },
    };
  }

  /** The WebSocket route the adapter holds: each socket is pinned to the generation that accepted it. */
  #dispatchSocket(pattern: string, first: WebSocketRoute<unknown>): WebSocketRoute<Pinned> {
    return {
      maxPayloadLength: first.maxPayloadLength,
      idleTimeoutSeconds: first.idleTimeoutSeconds,
      maxBackpressure: first.maxBackpressure,
      upgrade: async (request) => {
        const generation = this.#current;
        const route = generation?.webSockets.get(pattern);
        if (!generation || !route) throw new SwitchboardError(ErrorCodes.UNAVAILABLE, 'The server is restarting; retry shortly.');
        const data = await route.upgrade(request);
        // The view is completed on open, when the adapter's socket exists.
        return { generation, route, view: { data } as ServerWebSocket<unknown> };
      },
      open: (socket) => {
        const { generation, route } = socket.data;
        if (this.#current !== generation) {
          socket.end(RESTARTING);
          return;
        }
        const { data } = socket.data.view;
        const view: ServerWebSocket<unknown> = {
          data,
          get open() {
            return socket.open;
          },
          send: (text) => socket.send(text),
          end: (code) => socket.end(code),
        };
        (socket.data as { view: ServerWebSocket<unknown> }).view = view;
        generation.sockets.add(view);
        route.open?.(view);
      },
      message: (socket, data) => socket.data.route.message(socket.data.view, data),
      close: (socket) => {
        const { generation, route, view } = socket.data;
        if (!generation.sockets.delete(view)) return;
        route.close?.(view);
      },
    };
  }

  /** The Listener one generation sees: ready() routes to it; close() drains it and keeps the port. */
  #virtual(generation: Generation): Listener {
    const self = this;
    return {
      get port() {
        return self.#real!.port;
      },
      get inFlight() {
        return generation.inFlight;
      },
      ready() {
        self.#current = generation;
      },
      async close(graceMs: number) {
        if (self.#current === generation) self.#current = undefined;
        if (generation.inFlight > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, graceMs);
            generation.idle = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        for (const socket of generation.sockets) socket.end(RESTARTING);
      },
    };
  }
}
