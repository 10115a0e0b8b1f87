import type { SqlExecutor } from '../database.js';
import { OPERATOR_SCOPE } from './do-not-contact.js';

/** What a person agreed to: plain service messages, marketing, or calls by an automated (AI) voice. */
export type ConsentKind = 'transactional' | 'marketing' | 'automated-call';

/** A consent record. */
export interface Consent {
  readonly address: string;
  /** `*` when given to the operator (every agent), else the agent's id. */
  readonly scope: string;
  readonly kind: ConsentKind;
  /** How it was given: `web-form`, `sms-keyword`, `call`, `paper`… as the recorder names it. */
  readonly source: string;
  /** What shows it: the form's text and time, the message, the call's id. */
  readonly evidence: string | null;
  readonly recordedAt: string;
  readonly revokedAt: string | null;
}

interface ConsentRow {
  address: string;
  scope: string;
  kind: ConsentKind;
  source: string;
  evidence: string | null;
  recorded_at: string;
  revoked_at: string | null;
}

const toConsent = (row: ConsentRow): Consent => ({
  address: row.address,
  scope: row.scope,
  kind: row.kind,
  source: row.source,
  evidence: row.evidence,
  recordedAt: row.recorded_at,
  revokedAt: row.revoked_at,
});

/** Consent records per address, scope and kind; recording again renews one, revoking keeps the row. */
export class ConsentRepository {
  constructor(private readonly db: SqlExecutor) {}

  async record(consent: Omit<Consent, 'recordedAt' | 'revokedAt'>, at = new Date()): Promise<Consent> {
    const recordedAt = at.toISOString();
    await this.db.execute(
      `INSERT INTO consents (address, scope, kind, source, evidence, recorded_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, NULL)
       ON CONFLICT (address, scope, kind) DO UPDATE SET source = excluded.source, evidence = excluded.evidence, recorded_at = excluded.recorded_at, revoked_at = NULL`,
      [consent.address, consent.scope, consent.kind, consent.source, consent.evidence, recordedAt],
    );
    return { ...consent, recordedAt, revokedAt: null };
  }

  /** Revokes a live consent (false when there was none to revoke). */
  async revoke(address: string, scope: string, kind: ConsentKind, at = new Date()): Promise<boolean> {
    const { changes } = await this.db.execute('UPDATE consents SET revoked_at = ? WHERE address = ? AND scope = ? AND kind = ? AND revoked_at IS NULL', [
      at.toISOString(),
      address,
      scope,
      kind,
    ]);
    return changes > 0;
  }

  /** The live consent that lets `agentId` contact `address` for `kind`: the operator's or its own. */
  async current(address: string, agentId: string, kind: ConsentKind): Promise<Consent | undefined> {
    const rows = await this.db.query<ConsentRow>(
      'SELECT * FROM consents WHERE address = ? AND scope IN (?, ?) AND kind = ? AND revoked_at IS NULL ORDER BY scope',
      [address, OPERATOR_SCOPE, agentId, kind],
    );
    return rows[0] && toConsent(rows[0]);
  }

  /** Every record for an address, live and revoked, in one scope's view (its own and the operator's). */
  async forAddress(address: string, agentId: string): Promise<Consent[]> {
    const rows = await this.db.query<ConsentRow>('SELECT * FROM consents WHERE address = ? AND scope IN (?, ?) ORDER BY kind, scope', [address, OPERATOR_SCOPE, agentId]);
    return rows.map(toConsent);
  }
}
