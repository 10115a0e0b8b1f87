import type { Channel } from '@switchboard/sdk';
import type { PoolName } from '../store/repositories/pools.js';

/** The pool each channel draws from; sms and voice share one phone number. */
export const POOL_OF: Readonly<Record<Channel, PoolName>> = {
  sms: 'phone',
  voice: 'phone',
  whatsapp: 'whatsapp',
  line: 'line',
  email: 'email',
};
