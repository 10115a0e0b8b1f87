import type { Logger } from '../logger.js';
import type { Store } from '../store/store.js';

const BATCH = 500;

/**
 * Names the conversation of the messages and calls stored before conversations existed (migration
 * 13), a batch at a time, once at start by every process that holds agents: idempotent, so several
 * nodes may run it at once, and a look at an empty partial index when there is nothing left.
 */
export async function backfillConversations(store: Store, logger: Logger): Promise<number> {
  let total = 0;
  try {
    for (let named = await store.conversations.backfill(BATCH); named > 0; named = await store.conversations.backfill(BATCH)) {
      total += named;
      logger.info({ named: total }, 'conversations: naming messages and calls stored before them');
    }
  } catch (err) {
    logger.warn({ err, named: total }, 'conversations: naming older messages failed; the next start goes on');
  }
  return total;
}
