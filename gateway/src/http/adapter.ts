import type { Logger } from '@switchboard/runtime';
import type { GatewayApp } from './app.js';
import type { ClientAddress } from './client-address.js';
import type { ConnectionLimits } from './connection-limits.js';
import type { SocketRoutes } from './socket-routes.js';

/** A listening gateway socket. */
export interface Listener {
  readonly port: number;
  /** Stops accepting, waits up to `graceMs` for requests in flight, then closes every connection. */
  close(graceMs: number): Promise<void>;
  /** Requests being handled now. */
  readonly inFlight: number;
  /** Ends the start-up window: routes answer from now on instead of 503 `starting`. */
  ready(): void;
}

export interface ListenOptions {
  host: string;
  port: number;
  logger: Logger;
  /** Attaches the routes that need the exchange or a socket (SSE, MCP, voice WS). */
  before?: (routes: SocketRoutes) => void;
  /** Open the port before the routes are ready: every request answers 503 `starting` until `ready()`. */
  starting?: boolean;
  /** Who the client of a request is (TRUSTED_PROXIES); the socket's peer when absent. */
  clientAddress?: ClientAddress;
  /** Time-outs for slow clients and the per-address connection cap; the settings' defaults when absent. */
  limits?: ConnectionLimits;
}

/** Names of the HTTP servers the gateway can run on. */
export type AdapterName = 'uws' | 'node';

/** An HTTP server under the gateway: it feeds plain requests to the app and hosts the socket routes. */
export interface HttpAdapter {
  readonly name: AdapterName;
  /** Binds the port exclusively: a port another process holds is refused (`CONFLICT`, "port in use"), never shared. */
  listen(app: GatewayApp, options: ListenOptions): Promise<Listener>;
}
