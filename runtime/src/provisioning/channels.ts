import { CHANNELS, CHANNEL_SPECS, type Channel } from '@switchboard/sdk';
import type { Settings } from '../settings/schema.js';
import type { PoolName } from '../store/repositories/pools.js';

/** The pool each channel draws from, as its table entry says; sms and voice share one phone number. */
export const POOL_OF: Readonly<Record<Channel, PoolName>> = Object.fromEntries(CHANNELS.map((c) => [c, CHANNEL_SPECS[c].pool.name])) as Record<Channel, PoolName>;

/** Every pool once, in the order of the first channel drawing from it. */
export const POOLS: readonly PoolName[] = [...new Set(CHANNELS.map((c) => POOL_OF[c]))];

/** The channel whose address pattern a pool's entries follow: the first drawing from it. */
export function poolChannel(pool: PoolName): Channel {
  return CHANNELS.find((c) => POOL_OF[c] === pool)!;
}

/** The comma-separated entries each setting-filled pool is given at start-up (`POOL_PHONE_NUMBERS`); email addresses are made per agent instead. */
export function configuredPools(settings: Settings): [PoolName, string][] {
  const filled = new Map<PoolName, string>();
  for (const channel of CHANNELS) {
    const pool = CHANNEL_SPECS[channel].pool;
    if ('setting' in pool) filled.set(pool.name, settings[pool.setting]);
  }
  return [...filled];
}

