import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { NatsBus } from '../bus/nats-bus.js';
import { roleInboxPrefix } from '../protocol/index.js';
import type { Logger } from '../logger.js';
import type { Settings } from '../settings/schema.js';
import { natsConnectionOptions } from './nats-connection.js';

export { natsUrlForLog } from './nats-connection.js';

/**
 * What a cluster process is: a `gateway` terminates HTTP, MCP and webhooks and holds no actors; a
 * `node` (runtime node) holds the actors of the partitions it leases, runs drivers and delivery, and
 * serves no HTTP.
 */
export type ClusterRole = 'gateway' | 'node';

/** This process's name in leases and logs: NODE_ID, else host name, pid and a random suffix. */
export function clusterNodeId(settings: Settings): string {
  if (settings.NODE_ID) return settings.NODE_ID;
  const host = hostname().replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 40);
  return `${host}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * Connects to NATS_URL under this node's name, with the credentials and TLS of the NATS_* settings.
 * Replies come to the role's own inboxes (`_INBOX_gateway.…`, `_INBOX_node.…`), so that NATS can let a
 * gateway read its replies and not a runtime node's (deploy/nats/switchboard-accounts.conf).
 */
export function connectClusterBus(settings: Settings, nodeId: string, role: ClusterRole, logger?: Logger): Promise<NatsBus> {
  return NatsBus.connect({ ...natsConnectionOptions(settings), name: `switchboard-${nodeId}`, inboxPrefix: roleInboxPrefix(role) }, { logger });
}

/** The live and turn subjects live with the rest of the wire, in protocol/. */
export { liveSubject, turnSubject } from '../protocol/index.js';
