import { ErrorCodes, SwitchboardError, safeEqual } from '@switchboard/sdk';
import { newId } from '../ids.js';
import { hashToken, newToken, type SecretBox } from '../secrets.js';
import type { SqlExecutor } from '../store/database.js';
import type { Store } from '../store/store.js';
import type { Bus } from '../bus/bus.js';
import { revokedSubject } from '../protocol/index.js';
import type { Principal } from './principal.js';

const CACHE_LIMIT = 10_000;
/** How long a token's principal is used without reading it again, should this process miss its revocation. */
const KEEP_MS = 5_000;

interface KeptPrincipal {
  readonly principal: Principal;
  /** Until when (ms since the epoch) it is used without a read. */
  readonly until: number;
}

/**
 * Issues, checks and revokes bearer tokens. Only hashes are stored; the team token is also kept
 * sealed so the admin API can show it. Looked-up tokens are kept in a bounded cache that every
 * revocation clears at once, so a revoked token stops working on its next request. Another process
 * may revoke (a cluster's node deprovisions an agent, another gateway replaces the team token):
 * whichever process commits a revocation announces it on the bus (`sb.revoked`) and every
 * process forgets those tokens when it hears it, so no token of an earlier agent under the same id
 * acts for a later one. A token is read again after {@link KEEP_MS} all the same, which bounds what a
 * process that missed an announcement (cut from NATS at that moment) keeps.
 */
export class TokenService {
  #orchestratorHash = '';
  readonly #cache = new Map<string, KeptPrincipal>();
  /** Revocations heard so far: a read that one overtook is used once, not kept (it may predate the revocation). */
  #revocations = 0;
  readonly #bus: Bus | undefined;

  /** `bus`: where revocations are announced and heard; without one, only this process's own are. */
  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
    bus?: Bus,
    private readonly now: () => number = Date.now,
  ) {
    this.#bus = bus;
    bus?.subscribe(revokedSubject(), (data) => this.#forgetRevoked(data as Revocation));
  }

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
    const now = this.now();
    const kept = this.#cache.get(hash);
    if (kept && kept.until > now) return kept.principal;
    const revocations = this.#revocations;
    const record = await this.store.tokens.findByHash(hash);
    if (!record || record.kind === 'orchestrator') return undefined;
    const principal: Principal = record.kind === 'team' ? { kind: 'team' } : { kind: 'client', agentId: record.agentId ?? '', tokenId: record.id };
    if (revocations !== this.#revocations) return principal;
    if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
    this.#cache.set(hash, { principal, until: now + KEEP_MS });
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
      await this.store.tokens.deleteKind(tx, 'team');
      await this.#insert(tx, 'team', null, token, true);
      this.#forgetTeam();
    });
    this.#announce({ team: true });
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

  /** Revokes an agent's client tokens inside the caller's transaction; once it commits, the caller calls {@link announceRevoked}. */
  async revokeClientTokens(tx: SqlExecutor, agentId: string): Promise<void> {
    await this.store.tokens.deleteKind(tx, 'client', agentId);
    this.#forgetAgent(agentId);
  }

  /** After the commit that revoked the agent's client tokens: every process forgets them (this one at once). */
  announceRevoked(agentId: string): void {
    this.#announce({ agentId });
  }

  #announce(revocation: Revocation): void {
    this.#forgetRevoked(revocation);
    try {
      this.#bus?.publish(revokedSubject(), revocation);
    } catch {
      // The bus is closing: the other processes read the tokens again within KEEP_MS.
    }
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

  #forgetAgent(agentId: string): void {
    this.#revocations++;
    for (const [hash, { principal }] of this.#cache) {
      if (principal.kind === 'client' && principal.agentId === agentId) this.#cache.delete(hash);
    }
  }

  /** Forgets what an announcement names: an agent's client tokens, or the team token; anything else is ignored. */
  #forgetRevoked(revocation: Revocation | null): void {
    if (typeof revocation?.agentId === 'string') this.#forgetAgent(revocation.agentId);
    else if (revocation?.team === true) this.#forgetTeam();
  }

  #forgetTeam(): void {
    this.#revocations++;
    for (const [hash, { principal }] of this.#cache) if (principal.kind === 'team') this.#cache.delete(hash);
  }
}

/** What `sb.revoked` carries: the agent whose client tokens were revoked, or that the team token was replaced. */
interface Revocation {
  readonly agentId?: string;
  readonly team?: true;
}
