import type { AgentEvent } from '../../protocol/live.js';
import type { Database, SqlExecutor } from '../database.js';

/**
 * Where an event stands with the agent's callback URL: `pending` (attempts left), `delivered` (a 2xx),
 * `failed` (the schedule ran out), `refused` (a permanent refusal: 410 or `webhook-delivery:
 * abort-message`), `skipped` (the endpoint was disabled, or the agent has no callback URL any more).
 */
export type CallbackEventState = 'pending' | 'delivered' | 'failed' | 'refused' | 'skipped';

/** What one attempt came to: the event was delivered, will be retried, ran out of attempts, or was refused for good. */
export type AttemptOutcome = 'delivered' | 'retrying' | 'failed' | 'refused';

/** An event kept for its callback: its payload and where its retry schedule stands. */
export interface CallbackEventRecord {
  readonly eventId: string;
  readonly agentId: string;
  readonly type: string;
  /** The inbound message it delivers (a dead letter is written when it fails), or null. */
  readonly messageId: string | null;
  readonly event: AgentEvent;
  readonly state: CallbackEventState;
  /** Attempts in the current round (a replay starts a new round). */
  readonly attempts: number;
  readonly lastAttemptAt: string | null;
  /** Times an operator replayed it. */
  readonly replays: number;
  /** Set while the event waits for a far-off attempt outside the work queue. */
  readonly parkedUntil: string | null;
  readonly createdAt: string;
}

/** One row of the delivery log: one post of an event to a callback URL. */
export interface CallbackAttempt {
  readonly id: string;
  readonly eventId: string;
  readonly agentId: string;
  readonly url: string;
  /** The attempt's number in its round (from 1). */
  readonly attempt: number;
  /** The HTTP status answered; null when the post got no answer (see `error`). */
  readonly statusCode: number | null;
  /** Why the post got no answer (network error, time-out), or null. */
  readonly error: string | null;
  readonly latencyMs: number;
  /** The start of the answer's body, bounded. */
  readonly responseExcerpt: string | null;
  readonly outcome: AttemptOutcome;
  readonly createdAt: string;
}

/** A delivery log row: the attempt and the type of the event it posted (`message.received`, `call.status`…; null once the event was swept). */
export interface CallbackLogRow extends CallbackAttempt {
  readonly eventType: string | null;
}

/** An agent's callback endpoint: the URL, since when it has been failing without a success, and when it was disabled. */
export interface CallbackEndpoint {
  readonly agentId: string;
  readonly url: string;
  readonly failingSince: string | null;
  readonly disabledAt: string | null;
}

/** What an operator's replay names: one event, or the agent's events created in a time range. */
export type ReplaySelection = { readonly eventId: string } | { readonly since: string; readonly until: string };

interface EventRow {
  event_id: string;
  agent_id: string;
  type: string;
  message_id: string | null;
  payload: string;
  state: CallbackEventState;
  attempts: number;
  last_attempt_at: string | null;
  replays: number;
  parked_until: string | null;
  created_at: string;
}

interface EndpointRow {
  agent_id: string;
  url: string;
  failing_since: string | null;
  disabled_at: string | null;
}

const ATTEMPT_COLUMNS =
  'a.id, a.event_id AS "eventId", a.agent_id AS "agentId", a.url, a.attempt, a.status_code AS "statusCode", a.error, a.latency_ms AS "latencyMs", a.response_excerpt AS "responseExcerpt", a.outcome, a.created_at AS "createdAt"';
/** The log's rows with their event's type (null once the event was swept). */
const LOG_FROM = 'callback_attempts a LEFT JOIN callback_events e ON e.event_id = a.event_id';

/** The callback events, the per-attempt delivery log and the agents' endpoints (migration 11). */
export class CallbackRepository {
  constructor(private readonly db: Database) {}

  /** Keeps an event for its callback, pending; a repeat of a kept event changes nothing. Returns the stored record. */
  async keep(event: AgentEvent, messageId: string | null, createdAt: Date): Promise<CallbackEventRecord> {
    await this.db.execute(
      `INSERT INTO callback_events (event_id, agent_id, type, message_id, payload, state, attempts, created_at)
       VALUES (?, ?, ?, ?, ?, 'pending', 0, ?) ON CONFLICT (event_id) DO NOTHING`,
      [event.id, event.agentId, event.type, messageId, JSON.stringify(event), createdAt.toISOString()],
    );
    return (await this.event(event.id))!;
  }

  async event(eventId: string): Promise<CallbackEventRecord | undefined> {
    const row = await this.db.get<EventRow>('SELECT * FROM callback_events WHERE event_id = ?', [eventId]);
    return row && toEvent(row);
  }

  /**
   * Pending events, not parked, that deliver no message (a message's delivery is re-driven from the
   * message), oldest first.
   */
  async pendingNotifications(limit = 1000): Promise<CallbackEventRecord[]> {
    const rows = await this.db.query<EventRow>(
      "SELECT * FROM callback_events WHERE state = 'pending' AND parked_until IS NULL AND (message_id IS NULL OR replays > 0) ORDER BY created_at LIMIT ?",
      [limit],
    );
    return rows.map(toEvent);
  }

  /**
   * Parks a pending event whose next attempt is far off: its work item ends, and {@link parkedBefore}
   * finds it again when it is nearly due.
   */
  async park(eventId: string, until: Date): Promise<void> {
    await this.db.execute("UPDATE callback_events SET parked_until = ? WHERE event_id = ? AND state = 'pending'", [until.toISOString(), eventId]);
  }

  /** Parked pending events due before `before`, soonest first. */
  async parkedBefore(before: Date, limit = 1000): Promise<CallbackEventRecord[]> {
    const rows = await this.db.query<EventRow>(
      "SELECT * FROM callback_events WHERE parked_until IS NOT NULL AND parked_until <= ? AND state = 'pending' ORDER BY parked_until LIMIT ?",
      [before.toISOString(), limit],
    );
    return rows.map(toEvent);
  }

  /** Ends an event's parking once its work is queued again (unless it was parked again meanwhile). */
  async unpark(eventId: string, until: string): Promise<void> {
    await this.db.execute('UPDATE callback_events SET parked_until = NULL WHERE event_id = ? AND parked_until = ?', [eventId, until]);
  }

  /** Sets an event's state without an attempt (skipped: no post was made). */
  async settle(eventId: string, state: CallbackEventState): Promise<void> {
    await this.db.execute('UPDATE callback_events SET state = ? WHERE event_id = ?', [state, eventId]);
  }

  async endpoint(agentId: string): Promise<CallbackEndpoint | undefined> {
    const row = await this.db.get<EndpointRow>('SELECT * FROM callback_endpoints WHERE agent_id = ?', [agentId]);
    return row && toEndpoint(row);
  }

  /**
   * Records one attempt in one transaction: its log row, the event's new state and attempt count, and
   * the endpoint's run of failures (cleared by a success; started by a failure, or restarted when the
   * URL changed). The endpoint is disabled when a failure finds it failing since `disableBefore` or
   * earlier. Returns the endpoint as it stands after.
   */
  async recordAttempt(attempt: CallbackAttempt, state: CallbackEventState, disableBefore: Date): Promise<CallbackEndpoint> {
    return this.db.transaction(async (tx) => {
      await tx.execute(
        `INSERT INTO callback_attempts (id, event_id, agent_id, url, attempt, status_code, error, latency_ms, response_excerpt, outcome, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [attempt.id, attempt.eventId, attempt.agentId, attempt.url, attempt.attempt, attempt.statusCode, attempt.error, attempt.latencyMs, attempt.responseExcerpt, attempt.outcome, attempt.createdAt],
      );
      await tx.execute('UPDATE callback_events SET state = ?, attempts = ?, last_attempt_at = ?, parked_until = NULL WHERE event_id = ?', [state, attempt.attempt, attempt.createdAt, attempt.eventId]);
      const row = await tx.get<EndpointRow>('SELECT * FROM callback_endpoints WHERE agent_id = ?', [attempt.agentId]);
      const sameUrl = row?.url === attempt.url;
      const failed = attempt.outcome !== 'delivered';
      const failingSince = !failed ? null : sameUrl && row.failing_since ? row.failing_since : attempt.createdAt;
      let disabledAt = sameUrl && failed ? row.disabled_at : null;
      if (failed && !disabledAt && new Date(failingSince!).getTime() <= disableBefore.getTime()) disabledAt = attempt.createdAt;
      await tx.execute(
        `INSERT INTO callback_endpoints (agent_id, url, failing_since, disabled_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (agent_id) DO UPDATE SET url = excluded.url, failing_since = excluded.failing_since, disabled_at = excluded.disabled_at`,
        [attempt.agentId, attempt.url, failingSince, disabledAt],
      );
      return { agentId: attempt.agentId, url: attempt.url, failingSince, disabledAt };
    });
  }

  /**
   * An operator's replay: the named events start a new round (pending, no attempts) and the agent's
   * endpoint is enabled again with a clean record. Returns the events, with their new replay count.
   */
  async replay(agentId: string, selection: ReplaySelection): Promise<CallbackEventRecord[]> {
    return this.db.transaction(async (tx) => {
      const [where, params] =
        'eventId' in selection ? ['event_id = ?', [selection.eventId]] : ['created_at >= ? AND created_at < ?', [selection.since, selection.until]];
      await tx.execute(
        `UPDATE callback_events SET state = 'pending', attempts = 0, last_attempt_at = NULL, parked_until = NULL, replays = replays + 1 WHERE agent_id = ? AND ${where}`,
        [agentId, ...params],
      );
      await this.enable(agentId, tx);
      const rows = await tx.query<EventRow>(`SELECT * FROM callback_events WHERE agent_id = ? AND ${where} ORDER BY created_at LIMIT 10000`, [agentId, ...params]);
      return rows.map(toEvent);
    });
  }

  /** Enables an agent's endpoint again with a clean record (a replay, a callback URL set again). */
  async enable(agentId: string, tx: SqlExecutor = this.db): Promise<void> {
    await tx.execute('UPDATE callback_endpoints SET failing_since = NULL, disabled_at = NULL WHERE agent_id = ?', [agentId]);
  }

  /** An agent's delivery log, newest first: at most `limit` attempts older than the attempt `before` (an id), when given. */
  log(agentId: string, limit: number, before?: string): Promise<CallbackLogRow[]> {
    const columns = `${ATTEMPT_COLUMNS}, e.type AS "eventType"`;
    return before
      ? this.db.query<CallbackLogRow>(`SELECT ${columns} FROM ${LOG_FROM} WHERE a.agent_id = ? AND a.id < ? ORDER BY a.id DESC LIMIT ?`, [agentId, before, limit])
      : this.db.query<CallbackLogRow>(`SELECT ${columns} FROM ${LOG_FROM} WHERE a.agent_id = ? ORDER BY a.id DESC LIMIT ?`, [agentId, limit]);
  }

  /** Endpoints disabled for the URL their agent still has. */
  async disabledEndpoints(): Promise<CallbackEndpoint[]> {
    const rows = await this.db.query<EndpointRow>(
      `SELECT e.* FROM callback_endpoints e JOIN agents a ON a.agent_id = e.agent_id AND a.callback_url = e.url
       WHERE e.disabled_at IS NOT NULL ORDER BY e.disabled_at`,
    );
    return rows.map(toEndpoint);
  }

  /** Endpoints (of the URL their agent still has) failing with no success since, and those disabled for it: the metrics read it when scraped. */
  async countEndpoints(): Promise<{ failing: number; disabled: number }> {
    const row = await this.db.get<{ failing: number | string | null; disabled: number | string | null }>(
      `SELECT SUM(CASE WHEN e.disabled_at IS NULL THEN 1 ELSE 0 END) AS failing, SUM(CASE WHEN e.disabled_at IS NOT NULL THEN 1 ELSE 0 END) AS disabled
       FROM callback_endpoints e JOIN agents a ON a.agent_id = e.agent_id AND a.callback_url = e.url
       WHERE e.failing_since IS NOT NULL OR e.disabled_at IS NOT NULL`,
    );
    return { failing: Number(row?.failing ?? 0), disabled: Number(row?.disabled ?? 0) };
  }

  /** Removes log rows, and events no longer pending, created before `before`; returns the rows removed. */
  async sweep(before: Date): Promise<number> {
    const at = before.toISOString();
    const attempts = await this.db.execute('DELETE FROM callback_attempts WHERE created_at < ?', [at]);
    const events = await this.db.execute("DELETE FROM callback_events WHERE created_at < ? AND state <> 'pending'", [at]);
    return attempts.changes + events.changes;
  }

  /** Forgets an agent's events, log and endpoint (deprovisioning). */
  async deleteAgent(tx: SqlExecutor, agentId: string): Promise<void> {
    for (const table of ['callback_attempts', 'callback_events', 'callback_endpoints']) await tx.execute(`DELETE FROM ${table} WHERE agent_id = ?`, [agentId]);
  }
}

/** Whether an endpoint record disables posts to `url` (a new URL is a new endpoint, enabled). */
export function disablesUrl(endpoint: CallbackEndpoint | undefined, url: string): boolean {
  return endpoint !== undefined && endpoint.disabledAt !== null && endpoint.url === url;
}

function toEvent(row: EventRow): CallbackEventRecord {
  return {
    eventId: row.event_id,
    agentId: row.agent_id,
    type: row.type,
    messageId: row.message_id,
    event: JSON.parse(row.payload) as AgentEvent,
    state: row.state,
    attempts: Number(row.attempts),
    lastAttemptAt: row.last_attempt_at,
    replays: Number(row.replays),
    parkedUntil: row.parked_until,
    createdAt: row.created_at,
  };
}

function toEndpoint(row: EndpointRow): CallbackEndpoint {
  return { agentId: row.agent_id, url: row.url, failingSince: row.failing_since, disabledAt: row.disabled_at };
}
