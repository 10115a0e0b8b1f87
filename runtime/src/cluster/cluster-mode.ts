import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { NatsBus } from '../bus/nats-bus.js';
import { isDemoMode } from '../modes.js';
import type { Settings } from '../settings/schema.js';
import { natsConnectionOptions } from './nats-connection.js';

export { natsUrlForLog } from './nats-connection.js';

/**
 * What a cluster process is: a `gateway` terminates HTTP, MCP and webhooks and holds no actors; a
 * `node` (runtime node) holds the actors of the partitions it leases, runs drivers and delivery, and
 * serves no HTTP.
 */
export type ClusterRole = 'gateway' | 'node';

/**
 * Refuses a cluster start whose settings cannot work, naming the setting to fix: every process of a
 * cluster shares one PostgreSQL store and one secret key, reaches NATS, and talks to real providers
 * (the in-process demo simulator of embedded mode would be one per process).
 */
export function checkClusterSettings(settings: Settings, command: string): void {
  const missing: string[] = [];
  if (!settings.NATS_URL) missing.push('NATS_URL=nats://host:4222 (the NATS server with JetStream that joins the cluster)');
  if (!settings.DATABASE_URL) missing.push('DATABASE_URL=postgres://… (the store every process shares)');
  if (!settings.SECRET_KEY) missing.push('SECRET_KEY=<32 bytes, base64 or hex> (the same on every process, so each can open what another sealed)');
  if (!settings.PUBLIC_BASE_URL) missing.push('PUBLIC_BASE_URL=https://… (where providers reach the gateways; runtime nodes put it in status callbacks)');
  if (isDemoMode(settings)) missing.push('provider settings (TWILIO_*, RESEND_*, …); demo mode runs one simulator per process, so it is embedded-only — point the *_BASE_URL settings at `switchboard-simulator` to try a cluster locally');
  if (missing.length > 0) {
    throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `switchboard ${command} is a cluster process and needs:\n  - ${missing.join('\n  - ')}\nSee docs/cluster.md.`);
  }
}

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
export function connectClusterBus(settings: Settings, nodeId: string, role: ClusterRole): Promise<NatsBus> {
  return NatsBus.connect({ ...natsConnectionOptions(settings), name: `switchboard-${nodeId}`, inboxPrefix: `_INBOX_${role}` });
}

/** The live and turn subjects live with the rest of the wire, in protocol/. */
export { liveSubject, turnSubject } from '../protocol/index.js';
