import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../logger.js';
import { DISCONNECT_ADVISORIES } from '../protocol/index.js';
import type { Settings } from '../settings/schema.js';
import { natsConnectionOptions } from './nats-connection.js';

/** The name every cluster process gives its NATS connection (cluster-mode.ts `connectClusterBus`). */
const CONNECTION_NAME = /^switchboard-([A-Za-z0-9_=-]+)$/;

/**
 * Follows the NATS server's disconnect advisories (system account) and names the node whose
 * connection closed. A `kill -9` closes the socket at once, so peers hear of it in milliseconds; a
 * paused or partitioned node keeps its connection open (until the server's stale-connection check),
 * so it is not named and its leases run their TTL.
 */
export class NodeDisconnects {
  private constructor(private readonly connection: NatsConnection) {}

  /** Connects as NATS_SYSTEM_USER; undefined when that is not set. */
  static async follow(settings: Settings, nodeId: string, onGone: (node: string) => void, logger?: Logger): Promise<NodeDisconnects | undefined> {
    if (settings.NATS_SYSTEM_USER === '') return undefined;
    const options = natsConnectionOptions({ ...settings, NATS_USER: settings.NATS_SYSTEM_USER, NATS_PASSWORD: settings.NATS_SYSTEM_PASSWORD, NATS_TOKEN: '', NATS_NKEY_SEED_FILE: '', NATS_CREDS_FILE: '' });
    const connection = await connect({ ...options, name: `switchboard-advisories-${nodeId}`, maxReconnectAttempts: -1 });
    const follower = new NodeDisconnects(connection);
    follower.#listen(nodeId, onGone, logger);
    return follower;
  }

  /** Follows the advisories on `connection` (a system-account connection); for tests. */
  static on(connection: NatsConnection, nodeId: string, onGone: (node: string) => void, logger?: Logger): NodeDisconnects {
    const follower = new NodeDisconnects(connection);
    follower.#listen(nodeId, onGone, logger);
    return follower;
  }

  #listen(nodeId: string, onGone: (node: string) => void, logger?: Logger): void {
    this.connection.subscribe(DISCONNECT_ADVISORIES, {
      callback: (err, msg) => {
        if (err) return void logger?.warn({ err }, 'disconnect advisories ended');
        const name = advisoryClientName(msg.string());
        const node = name === undefined ? undefined : CONNECTION_NAME.exec(name)?.[1];
        if (node !== undefined && node !== nodeId) onGone(node);
      },
    });
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}

function advisoryClientName(json: string): string | undefined {
  try {
    return (JSON.parse(json) as { client?: { name?: string } }).client?.name;
  } catch {
    return undefined;
  }
}
