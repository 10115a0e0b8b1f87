/** A readiness probe: resolves with a short status ("ok", "disabled") or throws with the reason. */
export type Probe = () => Promise<'ok' | 'disabled'>;

interface Cached {
  at: number;
  value: string;
}

/** Readiness probes by name, each run for real and cached for a few seconds. */
export class ReadinessChecks {
  readonly #probes = new Map<string, Probe>();
  readonly #cache = new Map<string, Cached>();

  constructor(
    private readonly ttlMs = 5000,
    private readonly timeoutMs = 3000,
  ) {}

  register(name: string, probe: Probe): void {
    this.#probes.set(name, probe);
    this.#cache.delete(name);
  }

  /** One check's value ("ok", "disabled" or "error: <reason>"), cached as {@link run}'s; undefined when no such check is registered. */
  async check(name: string, now = Date.now()): Promise<string | undefined> {
    const probe = this.#probes.get(name);
    if (!probe) return undefined;
    const cached = this.#cache.get(name);
    if (cached && now - cached.at < this.ttlMs) return cached.value;
    const value = await this.#probe(probe);
    this.#cache.set(name, { at: now, value });
    return value;
  }

  /** Every check's value: "ok", "disabled" or "error: <reason>". */
  async run(now = Date.now()): Promise<{ ready: boolean; checks: Record<string, string> }> {
    const entries = await Promise.all(
      [...this.#probes.keys()].map(async (name) => [name, (await this.check(name, now))!] as const),
    );
    const checks = Object.fromEntries(entries);
    return { ready: entries.every(([, v]) => !v.startsWith('error')), checks };
  }

  async #probe(probe: Probe): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      });
      return await Promise.race([probe(), timeout]);
    } catch (err) {
      return `error: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      clearTimeout(timer);
    }
  }
}
