import type { SqlExecutor, SqlStatement, SqlValue } from '../database.js';
import type { CallLedgerRecord, TranscriptLine } from '../../protocol/call-record.js';
import { conversationIdOf, counterpartOf } from '../../protocol/conversations.js';
import { claimAsk, dueForAsk, type UnsettledTable } from './reconcile-claim.js';

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
  /** The W3C trace context the agent placed the call with (null: none, or an inbound call). */
  readonly traceparent?: string | null;
  /** Without a final status, asked about at its provider before: when it is next to be (the reconciler). */
  readonly nextAskAt?: string | null;
}

/** The statuses a call ends with; `unknown` is the reconciler's, at the bound. Any other is not final. */
export const FINAL_CALL_STATUSES: readonly string[] = ['completed', 'busy', 'no-answer', 'failed', 'canceled', 'unknown'];
/** A call without a final status (the partial indexes calls_unasked and calls_asked). */
const UNSETTLED = `status NOT IN (${FINAL_CALL_STATUSES.map((s) => `'${s}'`).join(', ')})`;
const UNSETTLED_CALLS: UnsettledTable = { table: 'calls', keyColumn: 'call_sid', unsettled: UNSETTLED };

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
  traceparent: string | null;
  next_ask_at?: string | null;
}

/** A call with what its media connection left: when it connected and ended, its ledger and transcript. */
export interface StoredCall extends CallRecord {
  readonly connectedAt: string | null;
  readonly endedAt: string | null;
  /** Null until the process holding the call's media wrote it (at the call's end), and for calls never connected. */
  readonly ledger: CallLedgerRecord | null;
  readonly transcript: TranscriptLine[] | null;
  /** The call's recording, once stored (and until its retention ends). */
  readonly recording: StoredRecording | null;
}

/** A call's stored recording: its file under the recordings directory, its length, when it was stored. */
export interface StoredRecording {
  readonly file: string;
  readonly seconds: number;
  readonly recordedAt: string;
}

interface StoredCallRow extends CallRow {
  connected_at: string | null;
  ended_at: string | null;
  ledger: string | null;
  transcript: string | null;
  recording_file: string | null;
  recording_seconds: number | null;
  recorded_at: string | null;
}

/** Which calls a listing takes, newest first; `after` continues after the (createdAt, callSid) of the last one seen. */
export interface CallFilter {
  readonly agentId?: string;
  readonly status?: string;
  readonly direction?: 'inbound' | 'outbound';
  readonly since?: string;
  readonly until?: string;
  readonly after?: { readonly createdAt: string; readonly callSid: string };
  readonly limit: number;
}

/** The call log. */
export class CallRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** The INSERT of a new call, to run in an atomic group (with the inbox entry of its start). */
  insertStatement(call: CallRecord): SqlStatement {
    return {
      sql: `INSERT INTO calls (call_sid, session_id, agent_id, direction, mode, from_address, to_address, status, duration_seconds, cost, created_at, updated_at, conversation_id, traceparent)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      params: [
        ...[call.callSid, call.sessionId, call.agentId, call.direction, call.mode, call.from, call.to, call.status, call.durationSeconds, call.cost, call.createdAt, call.updatedAt],
        conversationIdOf(call.agentId, counterpartOf(call)),
        call.traceparent ?? null,
      ],
    };
  }

  async insert(call: CallRecord, tx: SqlExecutor = this.db): Promise<void> {
    const { sql, params } = this.insertStatement(call);
    await tx.execute(sql, params);
  }

  async get(callSid: string): Promise<CallRecord | undefined> {
    const row = await this.db.get<CallRow>('SELECT * FROM calls WHERE call_sid = ?', [callSid]);
    return row && toRecord(row);
  }

  /**
   * Applies a status callback: status, and duration and cost once the provider reports them; with
   * `expected`, only over that status (the reconciler's answer must not undo a callback that came meanwhile).
   */
  updateStatusStatement(callSid: string, status: string, durationSeconds: number | null, cost: number | null, expected?: string): SqlStatement {
    return {
      sql: `UPDATE calls SET status = ?, duration_seconds = COALESCE(?, duration_seconds), cost = COALESCE(?, cost), updated_at = ? WHERE call_sid = ?${expected === undefined ? '' : ' AND status = ?'}`,
      params: [status, durationSeconds, cost, new Date().toISOString(), callSid, ...(expected === undefined ? [] : [expected])],
    };
  }

  /** Calls without a final status due for an ask at `now` (first asks: logged before `firstAskCut`), the reconciler's. */
  async dueForAsk(firstAskCut: Date, now: Date, limit = 500): Promise<CallRecord[]> {
    return (await dueForAsk<CallRow>(this.db, UNSETTLED_CALLS, firstAskCut, now, limit)).map(toRecord);
  }

  /** Takes the due ask about an unsettled call, as `MessageRepository.claimAsk` does for a message. */
  async claimAsk(callSid: string, previous: string | null, next: Date): Promise<boolean> {
    return claimAsk(this.db, UNSETTLED_CALLS, callSid, previous, next);
  }

  /** Records an unsettled call `unknown`, and nothing else (its agent is gone: no one to tell). */
  async settleUnknown(callSid: string): Promise<void> {
    await this.db.execute(`UPDATE calls SET status = 'unknown', updated_at = ? WHERE call_sid = ? AND ${UNSETTLED}`, [new Date().toISOString(), callSid]);
  }

  async updateStatus(callSid: string, status: string, durationSeconds: number | null, cost: number | null): Promise<boolean> {
    const { sql, params } = this.updateStatusStatement(callSid, status, durationSeconds, cost);
    return (await this.db.execute(sql, params)).changes > 0;
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

  /** The media connection of the call took it (once). */
  async markConnected(sessionId: string, at: string): Promise<void> {
    await this.db.execute('UPDATE calls SET connected_at = ? WHERE session_id = ? AND connected_at IS NULL', [at, sessionId]);
  }

  /** What the call's media connection leaves when it ends: its ledger and transcript (written once). */
  saveConversationStatement(sessionId: string, endedAt: string, ledger: CallLedgerRecord, transcript: readonly TranscriptLine[]): SqlStatement {
    return {
      sql: 'UPDATE calls SET ended_at = ?, ledger = ?, transcript = ? WHERE session_id = ? AND ledger IS NULL',
      params: [endedAt, JSON.stringify(ledger), JSON.stringify(transcript), sessionId],
    };
  }

  /** What a call that plays a voice message says: the message's text, as its transcript (a played file has no media connection to leave one). */
  async saveSpokenText(sessionId: string, lines: readonly TranscriptLine[]): Promise<void> {
    await this.db.execute('UPDATE calls SET transcript = ? WHERE session_id = ? AND transcript IS NULL', [JSON.stringify(lines), sessionId]);
  }

  /** The call's recording was stored (its file written first); false for an unknown session. */
  async saveRecording(sessionId: string, recording: StoredRecording): Promise<boolean> {
    const { changes } = await this.db.execute('UPDATE calls SET recording_file = ?, recording_seconds = ?, recorded_at = ? WHERE session_id = ?', [
      recording.file,
      recording.seconds,
      recording.recordedAt,
      sessionId,
    ]);
    return changes > 0;
  }

  /** Recordings stored before `before`, oldest first, a batch at a time (what the retention sweep removes). */
  async recordingsBefore(before: string, limit: number): Promise<{ sessionId: string; file: string }[]> {
    return this.db.query<{ sessionId: string; file: string }>(
      'SELECT session_id AS "sessionId", recording_file AS "file" FROM calls WHERE recorded_at < ? AND recording_file IS NOT NULL ORDER BY recorded_at LIMIT ?',
      [before, limit],
    );
  }

  /** The call keeps no recording any more (its file is gone). */
  async forgetRecording(sessionId: string): Promise<void> {
    await this.db.execute('UPDATE calls SET recording_file = NULL, recording_seconds = NULL, recorded_at = NULL WHERE session_id = ?', [sessionId]);
  }

  /** One call with its ledger and transcript, by its call sid or session id. */
  async detail(callId: string): Promise<StoredCall | undefined> {
    const row = await this.db.get<StoredCallRow>('SELECT * FROM calls WHERE call_sid = ? OR session_id = ?', [callId, callId]);
    return row && toStored(row);
  }

  /** Calls newest first, filtered; `limit + 1` rows are read so the caller knows whether more follow. */
  async list(filter: CallFilter): Promise<StoredCall[]> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const add = (sql: string, ...values: SqlValue[]) => {
      where.push(sql);
      params.push(...values);
    };
    if (filter.agentId !== undefined) add('agent_id = ?', filter.agentId);
    if (filter.status !== undefined) add('status = ?', filter.status);
    if (filter.direction !== undefined) add('direction = ?', filter.direction);
    if (filter.since !== undefined) add('created_at >= ?', filter.since);
    if (filter.until !== undefined) add('created_at < ?', filter.until);
    if (filter.after) add('(created_at < ? OR (created_at = ? AND call_sid < ?))', filter.after.createdAt, filter.after.createdAt, filter.after.callSid);
    const rows = await this.db.query<StoredCallRow>(
      `SELECT * FROM calls${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, call_sid DESC LIMIT ?`,
      [...params, filter.limit + 1],
    );
    return rows.map(toStored);
  }

  async listForAgent(agentId: string): Promise<CallRecord[]> {
    const rows = await this.db.query<CallRow>('SELECT * FROM calls WHERE agent_id = ? ORDER BY created_at', [agentId]);
    return rows.map(toRecord);
  }
}

function toStored(row: StoredCallRow): StoredCall {
  return {
    ...toRecord(row),
    connectedAt: row.connected_at,
    endedAt: row.ended_at,
    ledger: row.ledger === null ? null : (JSON.parse(row.ledger) as CallLedgerRecord),
    transcript: row.transcript === null ? null : (JSON.parse(row.transcript) as TranscriptLine[]),
    recording: row.recording_file === null ? null : { file: row.recording_file, seconds: Number(row.recording_seconds), recordedAt: row.recorded_at! },
  };
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
    traceparent: row.traceparent,
    ...(row.next_ask_at ? { nextAskAt: row.next_ask_at } : {}),
  };
}
