import type { SqlExecutor } from '../database.js';

/** Kinds of bearer token, from most to least powerful. */
export type TokenKind = 'orchestrator' | 'team' | 'client';

/** A stored token: only its hash, and for the team token a sealed copy the admin API can reveal. */
export interface TokenRecord {
  readonly id: string;
  readonly kind: TokenKind;
  readonly agentId: string | null;
  readonly tokenHash: string;
  readonly sealedToken: string | null;
  readonly createdAt: string;
}

interface TokenRow {
  id: string;
  kind: TokenKind;
  agent_id: string | null;
  token_hash: string;
  sealed_token: string | null;
  created_at: string;
}

/** Token hashes by kind and agent. */
export class TokenRepository {
  constructor(private readonly db: SqlExecutor) {}

  async insert(token: TokenRecord, tx: SqlExecutor = this.db): Promise<void> {
    await tx.execute('INSERT INTO tokens (id, kind, agent_id, token_hash, sealed_token, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
      token.id,
      token.kind,
      token.agentId,
      token.tokenHash,
      token.sealedToken,
      token.createdAt,
    ]);
  }

  async findByHash(tokenHash: string): Promise<TokenRecord | undefined> {
    const row = await this.db.get<TokenRow>('SELECT * FROM tokens WHERE token_hash = ?', [tokenHash]);
    return row && toRecord(row);
  }

  async findByKind(kind: TokenKind, tx: SqlExecutor = this.db): Promise<TokenRecord[]> {
    const rows = await tx.query<TokenRow>('SELECT * FROM tokens WHERE kind = ? ORDER BY created_at', [kind]);
    return rows.map(toRecord);
  }

  /** Deletes every token of a kind (and, for client tokens, of one agent). Returns the hashes removed. */
  async deleteKind(tx: SqlExecutor, kind: TokenKind, agentId?: string): Promise<string[]> {
    const where = agentId === undefined ? 'kind = ?' : 'kind = ? AND agent_id = ?';
    const params = agentId === undefined ? [kind] : [kind, agentId];
    const rows = await tx.query<{ token_hash: string }>(`SELECT token_hash FROM tokens WHERE ${where}`, params);
    await tx.execute(`DELETE FROM tokens WHERE ${where}`, params);
    return rows.map((r) => r.token_hash);
  }
}

function toRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    kind: row.kind,
    agentId: row.agent_id,
    tokenHash: row.token_hash,
    sealedToken: row.sealed_token,
    createdAt: row.created_at,
  };
}
