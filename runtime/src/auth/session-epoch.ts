import { createHash, randomBytes } from 'node:crypto';
import { safeEqual } from '@switchboard/sdk';
import type { SecretBox } from '../secrets.js';
import type { SettingsRepository } from '../store/repositories/settings.js';

const EPOCH_KEY = 'admin_session_epoch';
/** The orchestrator token (its hash, sealed) the current epoch was started under. */
const TOKEN_KEY = 'admin_session_token';

/**
 * The epoch of the admin UI's sessions: a session cookie carries the epoch it was signed in under
 * and is refused once the epoch moves on. It is kept in the store, so it holds across restarts and
 * for every gateway on the store, and it moves on at sign-out and when the orchestrator token
 * changes. Each process reads it at most every `maxAgeMs`; a sign-out here takes effect here at once.
 */
export class SessionEpoch {
  #token = '';
  #cached: { value: string; at: number } | undefined;
  #generation = 0;

  constructor(
    private readonly settings: Pick<SettingsRepository, 'get' | 'set'>,
    private readonly box: Pick<SecretBox, 'seal' | 'open'>,
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Binds sessions to the orchestrator token (by its hash); a token other than the one the epoch began under starts a new epoch. */
  async init(orchestratorHash: string): Promise<void> {
    this.#token = createHash('sha256').update('switchboard admin session\0').update(orchestratorHash).digest('base64url').slice(0, 22);
    const sealed = await this.settings.get(TOKEN_KEY);
    let same = false;
    try {
      same = sealed !== undefined && safeEqual(this.box.open(sealed), orchestratorHash);
    } catch {
      // Sealed under another key: as good as another token.
    }
    if (same) return;
    await this.advance();
    await this.settings.set(TOKEN_KEY, this.box.seal(orchestratorHash));
  }

  /** The current epoch; read from the store when the one this process holds is older than `maxAgeMs`. */
  async current(): Promise<string> {
    const cached = this.#cached;
    if (cached && this.now() - cached.at < this.maxAgeMs) return cached.value;
    const generation = this.#generation;
    const at = this.now();
    const value = `${(await this.settings.get(EPOCH_KEY)) ?? ''}.${this.#token}`;
    // A sign-out here while the store was read wins over what was read.
    if (generation !== this.#generation) return this.#cached!.value;
    this.#cached = { value, at };
    return value;
  }

  /** Starts a new epoch: every session signed in before it is over, here at once and elsewhere within `maxAgeMs`. */
  async advance(): Promise<void> {
    const epoch = randomBytes(12).toString('base64url');
    this.#generation++;
    this.#cached = { value: `${epoch}.${this.#token}`, at: this.now() };
    await this.settings.set(EPOCH_KEY, epoch);
  }
}
