import type { Channel } from '@switchboard/sdk';
import type { ConsentKind } from './consents.js';
import type { SqlExecutor } from '../database.js';

/** A channel an agent holds, with the pool it came from. */
export interface AgentChannel {
  readonly channel: Channel;
  /** The agent's address at the channel's own provider. */
  readonly address: string;
  readonly pool: string;
  /** The agent's senders at the channel's other providers, by provider (`{ telnyx: '+1…' }`), where it holds any. */
  readonly senders?: Readonly<Record<string, string>>;
}

/** An operator's waiver of calling hours for one agent, with the reason recorded. */
export interface CallingHoursOverride {
  readonly reason: string;
  readonly setAt: string;
}

/** An agent as stored. */
export interface AgentRecord {
  readonly agentId: string;
  readonly displayName: string;
  readonly status: 'active' | 'suspended';
  readonly blockedChannels: readonly Channel[];
  readonly callbackUrl: string | null;
  /** The callback signing secret, sealed with the store key. */
  readonly sealedSigningSecret: string | null;
  readonly greeting: string | null;
  readonly systemPrompt: string | null;
  readonly voice: string | null;
  readonly language: string | null;
  /** Whether the agent's calls are recorded when a call does not say (absent: off). */
  readonly recordCalls?: boolean;
  /** The consent kinds the agent must find on record before it contacts a person (absent: none). */
  readonly requireConsent?: readonly ConsentKind[];
  /** Whether the agent's emails carry one-click unsubscribe headers (RFC 8058) (absent: off). */
  readonly listUnsubscribe?: boolean;
  /** Calling hours waived for this agent by the operator, with the reason given and when (absent or null: kept). */
  readonly callingHoursOverride?: CallingHoursOverride | null;
  readonly channels: readonly AgentChannel[];
  readonly createdAt: string;
  readonly updatedAt: string;
}

interface AgentRow {
  agent_id: string;
  display_name: string;
  status: 'active' | 'suspended';
  blocked_channels: string;
  callback_url: string | null;
  signing_secret: string | null;
  greeting: string | null;
  system_prompt: string | null;
  voice: string | null;
  language: string | null;
  record_calls: number;
  require_consent: string;
  list_unsubscribe: number;
  calling_hours_override?: string | null;
  created_at: string;
  updated_at: string;
}

interface ChannelRow {
  agent_id: string;
  channel: Channel;
  address: string;
  pool: string;
  senders?: string | null;
}

/** Agents and the channels they hold. */
export class AgentRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** The agent and its channels in one statement (one round trip, one transaction outside a unit of work). */
  async get(agentId: string, tx: SqlExecutor = this.db): Promise<AgentRecord | undefined> {
    const rows = await tx.query<AgentRow & { channel: Channel | null; channel_address: string | null; channel_pool: string | null; channel_senders: string | null }>(
      `SELECT a.*, c.channel AS channel, c.address AS channel_address, c.pool AS channel_pool, c.senders AS channel_senders
       FROM agents a LEFT JOIN agent_channels c ON c.agent_id = a.agent_id WHERE a.agent_id = ? ORDER BY c.channel`,
      [agentId],
    );
    if (rows.length === 0) return undefined;
    const channels: ChannelRow[] = [];
    for (const r of rows) if (r.channel !== null) channels.push({ agent_id: agentId, channel: r.channel, address: r.channel_address!, pool: r.channel_pool!, senders: r.channel_senders });
    return toRecord(rows[0]!, channels);
  }

  /** When the agent now under this id was created (which incarnation it is), or undefined when there is none. */
  async createdAtOf(agentId: string): Promise<string | undefined> {
    return (await this.db.get<{ created_at: string }>('SELECT created_at FROM agents WHERE agent_id = ?', [agentId]))?.created_at;
  }

  async list(): Promise<AgentRecord[]> {
    const rows = await this.db.query<AgentRow>('SELECT * FROM agents ORDER BY created_at, agent_id');
    const channels = await this.db.query<ChannelRow>('SELECT * FROM agent_channels ORDER BY channel');
    const byAgent = new Map<string, ChannelRow[]>();
    for (const c of channels) byAgent.set(c.agent_id, [...(byAgent.get(c.agent_id) ?? []), c]);
    return rows.map((row) => toRecord(row, byAgent.get(row.agent_id) ?? []));
  }

  /** Inserts the agent and its channels; false, and nothing written, when the agent id is taken. */
  async insert(tx: SqlExecutor, agent: AgentRecord): Promise<boolean> {
    const { changes } = await tx.execute(
      `INSERT INTO agents (agent_id, display_name, status, blocked_channels, callback_url, signing_secret,
         greeting, system_prompt, voice, language, record_calls, require_consent, list_unsubscribe, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (agent_id) DO NOTHING`,
      [
        agent.agentId,
        agent.displayName,
        agent.status,
        JSON.stringify(agent.blockedChannels),
        agent.callbackUrl,
        agent.sealedSigningSecret,
        agent.greeting,
        agent.systemPrompt,
        agent.voice,
        agent.language,
        agent.recordCalls ? 1 : 0,
        JSON.stringify(agent.requireConsent ?? []),
        agent.listUnsubscribe ? 1 : 0,
        agent.createdAt,
        agent.updatedAt,
      ],
    );
    if (changes === 0) return false;
    await this.addChannels(tx, agent.agentId, agent.channels, agent.createdAt);
    return true;
  }

  /** Records channels an agent now holds. */
  async addChannels(tx: SqlExecutor, agentId: string, channels: readonly AgentChannel[], createdAt: string): Promise<void> {
    for (const c of channels) {
      await tx.execute('INSERT INTO agent_channels (agent_id, channel, address, pool, senders, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
        agentId,
        c.channel,
        c.address,
        c.pool,
        c.senders && Object.keys(c.senders).length > 0 ? JSON.stringify(c.senders) : null,
        createdAt,
      ]);
    }
  }

  /**
   * Holds the agent's row until `tx` ends (PostgreSQL; SQLite has one writer): an inbound message stored
   * at a gateway meanwhile waits, then finds no agent (messages.ts, `insertInbound`).
   */
  async lockForRemoval(tx: SqlExecutor, agentId: string): Promise<void> {
    if (tx.dialect === 'postgres') await tx.query('SELECT 1 FROM agents WHERE agent_id = ? FOR UPDATE', [agentId]);
  }

  /** Deletes the agent; its channels and tokens go with it (foreign keys cascade). */
  async delete(tx: SqlExecutor, agentId: string): Promise<boolean> {
    const { changes } = await tx.execute('DELETE FROM agents WHERE agent_id = ?', [agentId]);
    return changes > 0;
  }

  async setBlockedChannels(agentId: string, channels: readonly Channel[]): Promise<boolean> {
    const { changes } = await this.db.execute('UPDATE agents SET blocked_channels = ?, updated_at = ? WHERE agent_id = ?', [
      JSON.stringify(channels),
      new Date().toISOString(),
      agentId,
    ]);
    return changes > 0;
  }

  async setCallback(agentId: string, callbackUrl: string | null, sealedSigningSecret: string | null): Promise<boolean> {
    const { changes } = await this.db.execute(
      'UPDATE agents SET callback_url = ?, signing_secret = ?, updated_at = ? WHERE agent_id = ?',
      [callbackUrl, sealedSigningSecret, new Date().toISOString(), agentId],
    );
    return changes > 0;
  }

  async setRequireConsent(agentId: string, kinds: readonly ConsentKind[], at: string): Promise<boolean> {
    const { changes } = await this.db.execute('UPDATE agents SET require_consent = ?, updated_at = ? WHERE agent_id = ?', [JSON.stringify(kinds), at, agentId]);
    return changes > 0;
  }

  async setCallingHoursOverride(agentId: string, override: CallingHoursOverride | null, at: string): Promise<boolean> {
    const { changes } = await this.db.execute('UPDATE agents SET calling_hours_override = ?, updated_at = ? WHERE agent_id = ?', [override ? JSON.stringify(override) : null, at, agentId]);
    return changes > 0;
  }

  async setListUnsubscribe(agentId: string, on: boolean, at: string): Promise<boolean> {
    const { changes } = await this.db.execute('UPDATE agents SET list_unsubscribe = ?, updated_at = ? WHERE agent_id = ?', [on ? 1 : 0, at, agentId]);
    return changes > 0;
  }

  async count(): Promise<{ total: number; active: number }> {
    const row = await this.db.get<{ total: number; active: number }>(
      "SELECT COUNT(*) AS total, COALESCE(SUM(CASE WHEN status = 'active' THEN 1 ELSE 0 END), 0) AS active FROM agents",
    );
    return { total: row?.total ?? 0, active: row?.active ?? 0 };
  }
}

function toRecord(row: AgentRow, channels: readonly ChannelRow[]): AgentRecord {
  return {
    agentId: row.agent_id,
    displayName: row.display_name,
    status: row.status,
    blockedChannels: JSON.parse(row.blocked_channels) as Channel[],
    callbackUrl: row.callback_url,
    sealedSigningSecret: row.signing_secret,
    greeting: row.greeting,
    systemPrompt: row.system_prompt,
    voice: row.voice,
    language: row.language,
    recordCalls: Number(row.record_calls) === 1,
    requireConsent: JSON.parse(row.require_consent ?? '[]') as ConsentKind[],
    listUnsubscribe: Number(row.list_unsubscribe) === 1,
    callingHoursOverride: row.calling_hours_override ? (JSON.parse(row.calling_hours_override) as CallingHoursOverride) : null,
    channels: channels.map((c) => ({ channel: c.channel, address: c.address, pool: c.pool, ...(c.senders ? { senders: JSON.parse(c.senders) as Record<string, string> } : {}) })),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
