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

/** Connects to NATS_URL under this node's name, with the credentials and TLS of the NATS_* settings. */
export function connectClusterBus(settings: Settings, nodeId: string): Promise<NatsBus> {
  return NatsBus.connect({ ...natsConnectionOptions(settings), name: `switchboard-${nodeId}` });
}

/**
 * The subject a gateway holding an agent's live MCP session listens on; runtime nodes deliver to it
 * by request (no responders: no live session anywhere). Agent ids may hold dots, which NATS reads as
 * token separators, and never hold `~`.
 */
export function liveSubject(agentId: string): string {
  return `sb.live.${agentId.replaceAll('.', '~')}`;
}

/**
 * The subject a gateway holding an agent's MCP session with sampling listens on for the voice turns
 * of calls held by other gateways (no responders: no such session anywhere).
 */
export function turnSubject(agentId: string): string {
  return `sb.turn.${agentId.replaceAll('.', '~')}`;
}
