import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { CALLS_BUCKET } from '../protocol/index.js';
import type { CallDirectory } from './call-directory.js';
import type { CallSession } from './call-session.js';

/** What crosses to another process: a session as it was created, without its live state. */
type CallSessionRecord = Omit<CallSession, 'ended'>;

/**
 * The cluster's call directory: call sessions every process can read, in the JetStream KV bucket `sb_calls` keyed by
 * session id. The runtime node that admits a call writes the record; the gateway that takes the
 * call's media WebSocket reads it and runs the call from its own copy. Entries expire with the
 * bucket's TTL (the longest call plus ringing), so a call whose end nobody reported leaves nothing.
 */
export class KvCallDirectory implements CallDirectory {
  private constructor(private readonly kv: KV) {}

  /** Opens (or creates) the bucket; when it already exists, its own TTL wins. */
  static async open(connection: NatsConnection, ttlMs: number, bucket = CALLS_BUCKET, replicas = 1): Promise<KvCallDirectory> {
    const kvm = new Kvm(connection);
    let kv: KV;
    try {
      kv = await kvm.create(bucket, { ttl: ttlMs, history: 1, replicas });
    } catch {
      kv = await kvm.open(bucket);
    }
    return new KvCallDirectory(kv);
  }

  /** Stores the session as it is now (id, agent, parties, prompts, purpose, callSid when known). */
  async put(session: CallSession): Promise<void> {
    const { ended: _ended, ...record } = session;
    await this.kv.put(session.sessionId, JSON.stringify(record satisfies CallSessionRecord));
  }

  /** A fresh live session from the stored record; undefined when none (unknown, ended or expired). */
  async get(sessionId: string): Promise<CallSession | undefined> {
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(sessionId)) return undefined;
    const entry = await this.kv.get(sessionId);
    if (!entry || entry.operation !== 'PUT') return undefined;
    const record = entry.json<CallSessionRecord>();
    return { ...record, transcript: [...record.transcript], ended: false };
  }

  /** Forgets a session whose call ended. */
  async delete(sessionId: string): Promise<void> {
    await this.kv.delete(sessionId);
  }
}
