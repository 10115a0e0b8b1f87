import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { round4 } from '../billing/tariffs.js';
import { FINAL_CALL_STATUSES, type StoredCall } from '../store/repositories/calls.js';
import type { Store } from '../store/store.js';
import { summarize, type CallLedgerRecord, type CallSummary, type TranscriptLine } from './call-ledger.js';

/** A call as the calls API lists it: parties, status, timing, cost and its summary (null until its ledger is written). */
export interface CallView {
  readonly callId: string;
  readonly callSid: string;
  readonly sessionId: string;
  readonly agentId: string;
  readonly direction: 'inbound' | 'outbound';
  readonly mode: 'relay' | 'stream';
  readonly status: string;
  readonly from: string;
  readonly to: string;
  readonly createdAt: string;
  readonly connectedAt: string | null;
  readonly endedAt: string | null;
  readonly durationSeconds: number;
  readonly cost: number | null;
  readonly summary: CallSummary | null;
  readonly traceparent: string | null;
  /** The call's recording, when it was recorded and is still kept; the gateway adds its `url`. */
  readonly recording: { readonly durationSeconds: number; readonly recordedAt: string } | null;
}

/** One call with its latency ledger and transcript. */
export interface CallDetail extends CallView {
  readonly ledger: CallLedgerRecord | null;
  readonly transcript: readonly TranscriptLine[];
}

/** Which calls a listing returns. */
export interface CallQuery {
  readonly agentId?: string;
  readonly status?: string;
  readonly direction?: 'inbound' | 'outbound';
  readonly since?: string;
  readonly until?: string;
  readonly limit: number;
  /** The `nextCursor` of the page before. */
  readonly cursor?: string;
}

/** The statuses a call ends with (`unknown`: no final one from the provider within the reconciler's bound). */
export const ENDED_STATUSES: readonly string[] = FINAL_CALL_STATUSES;

/** How long a call's end waits for the ledger of its media connection, which may close just after the provider says the call ended. */
export const LEDGER_WAIT_MS = 3000;

/** The calls API's reads of the store. */
export class StoredCallReads {
  constructor(private readonly store: Store) {}

  /** Calls newest first, a page at a time; `nextCursor` continues the listing, null on the last page. */
  async list(query: CallQuery): Promise<{ calls: CallView[]; nextCursor: string | null }> {
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const rows = await this.store.calls.list({ ...query, ...(after ? { after } : {}) });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const nextCursor = rows.length > query.limit && last ? encodeCursor(last) : null;
    return { calls: page.map(view), nextCursor };
  }

  /** One call by its call sid or session id. */
  async get(callId: string): Promise<CallDetail | undefined> {
    const call = await this.store.calls.detail(callId);
    return call && { ...view(call), ledger: call.ledger, transcript: call.transcript ?? [] };
  }

  /** Whose call it is and the file of its recording (null: none kept), by its call sid or session id. */
  async recording(callId: string): Promise<{ agentId: string; file: string | null } | undefined> {
    const call = await this.store.calls.detail(callId);
    return call && { agentId: call.agentId, file: call.recording?.file ?? null };
  }
}

/**
 * The summary a call's end event carries: waits (briefly) for the ledger when the call connected
 * and its media connection has not written it yet.
 */
export async function endedCallSummary(store: Pick<Store, 'calls'>, callSid: string): Promise<CallSummary | undefined> {
  const deadline = Date.now() + LEDGER_WAIT_MS;
  let call = await store.calls.detail(callSid);
  while (call && call.connectedAt !== null && call.ledger === null && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    call = await store.calls.detail(callSid);
  }
  return call && summarize(call.ledger, call.durationSeconds);
}

function view(call: StoredCall): CallView {
  return {
    callId: call.callSid,
    callSid: call.callSid,
    sessionId: call.sessionId,
    agentId: call.agentId,
    direction: call.direction,
    mode: call.mode,
    status: call.status,
    from: call.from,
    to: call.to,
    createdAt: call.createdAt,
    connectedAt: call.connectedAt,
    endedAt: call.endedAt,
    durationSeconds: Number(call.durationSeconds),
    cost: call.cost === null ? null : round4(Number(call.cost)),
    summary: call.ledger === null ? null : summarize(call.ledger, Number(call.durationSeconds)),
    traceparent: call.traceparent ?? null,
    recording: call.recording && { durationSeconds: call.recording.seconds, recordedAt: call.recording.recordedAt },
  };
}

function encodeCursor(call: StoredCall): string {
  return Buffer.from(JSON.stringify([call.createdAt, call.callSid])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: string; callSid: string } {
  try {
    const [createdAt, callSid] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'string' && typeof callSid === 'string') return { createdAt, callSid };
  } catch {
    // answered below
  }
  throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'cursor is not one this API returned; pass the nextCursor of the page before, or leave it out.');
}
