import type { SqlExecutor } from '../database.js';

/** A voice call as stored: direction, mode, status, duration and cost. */
export interface CallRecord {
  readonly callSid: string;
  readonly sessionId: string;
  readonly agentId: string;
  readonly direction: 'inbound' | 'outbound';
  readonly mode: 'relay' | 'stream';
  readonly from: string;
  readonly to: string;
  readonly status: string;
  readonly durationSeconds: number;
  readonly cost: number | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

interface CallRow {
  call_sid: string;
  session_id: string;
  agent_id: string;
  direction: 'inbound' | 'outbound';
  mode: 'relay' | 'stream';
  from_address: string;
  to_address: string;
  status: string;
  duration_seconds: number;
  cost: number | null;
  created_at: string;
  updated_at: string;
}

/** The call log. */
export class CallRepository {
  constructor(private readonly db: SqlExecutor) {}

  async insert(call: CallRecord, tx: SqlExecutor = this.db): Promise<void> {
    await tx.execute(
      `INSERT INTO calls (call_sid, session_id, agent_id, direction, mode, from_address, to_address, status, duration_seconds, cost, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [call.callSid, call.sessionId, call.agentId, call.direction, call.mode, call.from, call.to, call.status, call.durationSeconds, call.cost, call.createdAt, call.updatedAt],
    );
  }

  async get(callSid: string): Promise<CallRecord | undefined> {
    const row = await this.db.get<CallRow>('SELECT * FROM calls WHERE call_sid = ?', [callSid]);
    return row && toRecord(row);
  }

  /** Applies a status callback: status, and duration and cost once the provider reports them. */
  async updateStatus(callSid: string, status: string, durationSeconds: number | null, cost: number | null): Promise<boolean> {
    const { changes } = await this.db.execute(
      `UPDATE calls SET status = ?, duration_seconds = COALESCE(?, duration_seconds), cost = COALESCE(?, cost), updated_at = ? WHERE call_sid = ?`,
      [status, durationSeconds, cost, new Date().toISOString(), callSid],
    );
    return changes > 0;
  }

  /** Calls the agent placed or received, whatever their outcome. */
  async countForAgent(agentId: string): Promise<number> {
    const row = await this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM calls WHERE agent_id = ?', [agentId]);
    return row?.n ?? 0;
  }

  /** Outbound calls the agent placed to one number since a time, whatever their outcome. */
  async countOutboundTo(agentId: string, to: string, since: string): Promise<number> {
    const row = await this.db.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM calls WHERE agent_id = ? AND to_address = ? AND direction = 'outbound' AND created_at >= ?",
      [agentId, to, since],
    );
    return row?.n ?? 0;
  }

  async listForAgent(agentId: string): Promise<CallRecord[]> {
    const rows = await this.db.query<CallRow>('SELECT * FROM calls WHERE agent_id = ? ORDER BY created_at', [agentId]);
    return rows.map(toRecord);
  }
}

function toRecord(row: CallRow): CallRecord {
  return {
    callSid: row.call_sid,
    sessionId: row.session_id,
    agentId: row.agent_id,
    direction: row.direction,
    mode: row.mode,
    from: row.from_address,
    to: row.to_address,
    status: row.status,
    durationSeconds: row.duration_seconds,
    cost: row.cost,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
