import type uWS from 'uWebSockets.js';
import type { Logger } from '@switchboard/runtime';
import type { GatewayApp, HandledRequest } from '../http/app.js';
import type { HttpRequest } from '../http/types.js';
import { listen, type Listener } from '../http/uws-adapter.js';

/** Same signature as the adapter's `listen`, so `startGateway` can take either. */
export type ListenFunction = typeof listen;

type Handler = (res: uWS.HttpResponse, req: uWS.HttpRequest) => void;
type Behavior = uWS.WebSocketBehavior<unknown>;

const STARTING = JSON.stringify({ status: 'starting' });
const HTTP_METHODS = ['get', 'post', 'put', 'del', 'patch', 'options', 'head', 'any'] as const;
const WS_EVENTS = ['message', 'drain', 'ping', 'pong', 'subscription'] as const;

/** One server generation's routes behind the shared socket. */
class Generation {
  readonly http = new Map<string, Handler>();
  readonly ws = new Map<string, Behavior>();
  readonly sockets = new Set<uWS.WebSocket<unknown>>();
  inFlight = 0;
  idle: (() => void) | undefined;
  constructor(readonly app: GatewayApp) {}
}

/**
 * Keeps one listening socket for the life of the process while server generations come and go
 * behind it (the admin API's deploy). Closing a listening socket and binding it again can fail for
 * a minute (TIME_WAIT of connections the server closed), so the port is never let go; between
 * generations every request answers 503 `starting` with Retry-After.
 */
export class SwitchingListener {
  #real: Listener | undefined;
  #current: Generation | undefined;
  readonly #registered = new Set<string>();
  readonly #pinned = new WeakMap<uWS.WebSocket<unknown>, Generation>();

  /** A `listen` for `startGateway`: the first call binds the port, later ones reuse it. */
  readonly listen: ListenFunction = async (app, options) => {
    const generation = new Generation(app);
    const front = this.#front(generation);
    if (!this.#real) {
      this.#real = await listenOnce(this.#dispatcher(), options, (uws) => {
        this.#uws = uws;
      });
      this.#real.ready();
    }
    options.before?.(front);
    return this.#virtual(generation);
  };

  #uws: uWS.TemplatedApp | undefined;

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
        if (!generation) return { status: 503, headers: { 'retry-after': '1', 'cache-control': 'no-store' }, body: JSON.parse(STARTING), route: 'starting' };
        generation.inFlight++;
        try {
          return await generation.app.handle(request);
        } finally {
          if (--generation.inFlight === 0) generation.idle?.();
        }
      },
    } as unknown as GatewayApp;
  }

  /** What a generation's socket routes register on: recorded per generation, routed to the current one. */
  #front(generation: Generation): uWS.TemplatedApp {
    const self = this;
    const front = new Proxy({} as uWS.TemplatedApp, {
      get(_target, property) {
        if (typeof property === 'string' && (HTTP_METHODS as readonly string[]).includes(property)) {
          return (pattern: string, handler: Handler) => {
            generation.http.set(`${property} ${pattern}`, handler);
            self.#registerHttp(property as (typeof HTTP_METHODS)[number], pattern);
            return front;
          };
        }
        if (property === 'ws') {
          return (pattern: string, behavior: Behavior) => {
            generation.ws.set(pattern, behavior);
            self.#registerWs(pattern, behavior);
            return front;
          };
        }
        return (self.#uws as unknown as Record<string | symbol, unknown>)[property];
      },
    });
    return front;
  }

  #registerHttp(method: (typeof HTTP_METHODS)[number], pattern: string): void {
    const key = `${method} ${pattern}`;
    if (this.#registered.has(key)) return;
    this.#registered.add(key);
    (this.#uws![method] as (p: string, h: Handler) => unknown).call(this.#uws, pattern, (res, req) => {
      const handler = this.#current?.http.get(key);
      if (handler) handler(res, req);
      else answerStarting(res);
    });
  }

  #registerWs(pattern: string, behavior: Behavior): void {
    const key = `ws ${pattern}`;
    if (this.#registered.has(key)) return;
    this.#registered.add(key);
    const of = (ws: uWS.WebSocket<unknown>) => this.#pinned.get(ws)?.ws.get(pattern);
    const dispatch: Behavior = {
      ...behavior,
      upgrade: (res, req, context) => {
        const upgrade = this.#current?.ws.get(pattern)?.upgrade;
        if (!this.#current) answerStarting(res);
        else if (upgrade) upgrade(res, req, context);
        else res.upgrade({}, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
      },
      open: (ws) => {
        const generation = this.#current;
        if (!generation) {
          ws.end(1012, 'Service restarting');
          return;
        }
        this.#pinned.set(ws, generation);
        generation.sockets.add(ws);
        generation.ws.get(pattern)?.open?.(ws);
      },
      close: (ws, code, message) => {
        this.#pinned.get(ws)?.sockets.delete(ws);
        of(ws)?.close?.(ws, code, message);
      },
    };
    for (const event of WS_EVENTS) {
      if (behavior[event]) (dispatch as Record<string, unknown>)[event] = (ws: uWS.WebSocket<unknown>, ...rest: unknown[]) => (of(ws)?.[event] as ((...a: unknown[]) => unknown) | undefined)?.(ws, ...rest);
    }
    this.#uws!.ws(pattern, dispatch);
  }

  /** The Listener one generation sees: ready() routes to it; close() drains it and keeps the port. */
  #virtual(generation: Generation): Listener {
    const self = this;
    return {
      get port() {
        return self.#real!.port;
      },
      get uws() {
        return self.#uws!;
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
        for (const ws of generation.sockets) ws.end(1012, 'Service restarting');
        generation.sockets.clear();
      },
    };
  }
}

async function listenOnce(app: GatewayApp, options: Parameters<ListenFunction>[1], grab: (uws: uWS.TemplatedApp) => void): Promise<Listener> {
  const listener = await listen(app, { host: options.host, port: options.port, logger: options.logger as Logger, starting: true, before: grab });
  return listener;
}

function answerStarting(res: uWS.HttpResponse): void {
  res.cork(() => {
    res.writeStatus('503 Service Unavailable').writeHeader('content-type', 'application/json; charset=utf-8').writeHeader('retry-after', '1').writeHeader('cache-control', 'no-store');
    res.end(STARTING, true);
  });
}
