import type { Store } from '../store/store.js';

/** The global markup in percent: the admin API's value in the store, else MARKUP_PERCENT. */
export class Markup {
  constructor(
    private readonly store: Store,
    private readonly configured: number,
  ) {}

  async percent(): Promise<number> {
    const stored = await this.store.settings.get('markup_percent');
    return stored === undefined ? this.configured : Number(stored);
  }

  setPercent(percent: number): Promise<void> {
    return this.store.settings.set('markup_percent', String(percent));
  }
}
