import { ErrorCodes, SwitchboardError, safeEqual } from '@switchboard/sdk';
import { newId } from '../ids.js';
import { hashToken, newToken, type SecretBox } from '../secrets.js';
import type { SqlExecutor } from '../store/database.js';
import type { Store } from '../store/store.js';
import type { Principal } from './principal.js';

const CACHE_LIMIT = 10_000;

/**
 * Issues, checks and revokes bearer tokens. Only hashes are stored; the team token is also kept
 * sealed so the admin API can show it. Team-token lookups hit a bounded cache that every revocation
 * clears at once, so a revoked token stops working on its next request. A client token is looked up
 * on every request: its record goes with its agent, and another process (a cluster's node) may have
 * deprovisioned that agent, so no token of an earlier agent under the same id acts for a later one.
 */
export class TokenService {
  #orchestratorHash = '';
  readonly #cache = new Map<string, Principal>();

  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
  ) {}

  /**
   * Makes sure an orchestrator and a team token exist. A configured orchestrator token wins;
   * otherwise the first start generates one and returns it so it can be printed once.
   */
  async init(configuredOrchestratorToken: string): Promise<{ generatedOrchestratorToken?: string }> {
    const result: { generatedOrchestratorToken?: string } = {};
    const ensure = async (tx: SqlExecutor) => {
      const stored = await this.store.tokens.findByKind('orchestrator', tx);
      if (configuredOrchestratorToken) {
        this.#orchestratorHash = hashToken(configuredOrchestratorToken);
      } else if (stored[0]) {
        this.#orchestratorHash = stored[0].tokenHash;
      } else {
        const token = newToken('sb_orch');
        this.#orchestratorHash = hashToken(token);
        await this.#insert(tx, 'orchestrator', null, token, false);
        result.generatedOrchestratorToken = token;
      }
      if ((await this.store.tokens.findByKind('team', tx)).length === 0) {
        await this.#insert(tx, 'team', null, newToken('sb_team'), true);
      }
    };
    // Under a lock: of several nodes starting on one new database, one creates the tokens.
    await this.store.db.withLock('switchboard:tokens', () => this.store.db.transaction(ensure));
    await this.#checkKey();
    return result;
  }

  /** Refuses the start when the store key cannot open what it sealed: SECRET_KEY was changed. */
  async #checkKey(): Promise<void> {
    const [record] = await this.store.tokens.findByKind('team');
    if (!record?.sealedToken) return;
    try {
      this.box.open(record.sealedToken);
    } catch (err) {
      throw new SwitchboardError(
        ErrorCodes.VALIDATION_FAILED,
        'SECRET_KEY does not open the secrets this store holds: they were sealed with another key. Set SECRET_KEY back to the key the store was created with (or clear it to use DATA_DIR/secret.key); see docs/configuration.md on changing it.',
        { cause: err },
      );
    }
  }

  /** SHA-256 of the orchestrator token, once {@link init} ran. */
  get orchestratorHash(): string {
    return this.#orchestratorHash;
  }

  /** The principal a token stands for, or undefined when it is unknown or revoked. */
  async authenticate(token: string): Promise<Principal | undefined> {
    if (!token) return undefined;
    const hash = hashToken(token);
    if (safeEqual(hash, this.#orchestratorHash)) return { kind: 'orchestrator' };
    const cached = this.#cache.get(hash);
    if (cached) return cached;
    const record = await this.store.tokens.findByHash(hash);
    if (!record || record.kind === 'orchestrator') return undefined;
    const principal: Principal = record.kind === 'team' ? { kind: 'team' } : { kind: 'client', agentId: record.agentId ?? '', tokenId: record.id };
    if (principal.kind === 'client') return principal;
    if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
    this.#cache.set(hash, principal);
    return principal;
  }

  /** When the agent now under `agentId` was created, or undefined when there is none: an access token issued before it is for an earlier agent. */
  agentCreatedAt(agentId: string): Promise<string | undefined> {
    return this.store.agents.createdAtOf(agentId);
  }

  /** The current team token in clear. */
  async teamToken(): Promise<string> {
    const [record] = await this.store.tokens.findByKind('team');
    if (!record?.sealedToken) throw new Error('No team token is stored; restart to create one.');
    return this.box.open(record.sealedToken);
  }

  /** Replaces the team token; the old one stops working at once. */
  async regenerateTeamToken(): Promise<string> {
    const token = newToken('sb_team');
    await this.store.db.transaction(async (tx) => {
      const removed = await this.store.tokens.deleteKind(tx, 'team');
      await this.#insert(tx, 'team', null, token, true);
      this.#forget(removed);
    });
    return token;
  }

  /** Replaces the stored orchestrator token (offline, see `resetOrchestratorToken`); returns the new one in clear, once. */
  async resetOrchestratorToken(): Promise<string> {
    const token = newToken('sb_orch');
    await this.store.db.transaction(async (tx) => {
      await this.store.tokens.deleteKind(tx, 'orchestrator');
      await this.#insert(tx, 'orchestrator', null, token, false);
    });
    this.#orchestratorHash = hashToken(token);
    return token;
  }

  /** Records an agent's client token, minted by the caller (which alone sees it in clear), by its hash inside the caller's transaction. */
  async registerClientToken(tx: SqlExecutor, agentId: string, tokenHash: string): Promise<void> {
    await this.store.tokens.insert({ id: newId('tok'), kind: 'client', agentId, tokenHash, sealedToken: null, createdAt: new Date().toISOString() }, tx);
  }

  /** Revokes an agent's client tokens inside the caller's transaction. */
  async revokeClientTokens(tx: SqlExecutor, agentId: string): Promise<void> {
    this.#forget(await this.store.tokens.deleteKind(tx, 'client', agentId));
  }

  async #insert(tx: SqlExecutor, kind: 'orchestrator' | 'team' | 'client', agentId: string | null, token: string, seal: boolean) {
    await this.store.tokens.insert(
      {
        id: newId('tok'),
        kind,
        agentId,
        tokenHash: hashToken(token),
        sealedToken: seal ? this.box.seal(token) : null,
        createdAt: new Date().toISOString(),
      },
      tx,
    );
  }

  #forget(hashes: readonly string[]): void {
    for (const hash of hashes) this.#cache.delete(hash);
  }
}
