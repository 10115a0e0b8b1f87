// Test worker entry: the real audio worker, but some batches finish late, so batches overtake
// each other and the pool has to put results back in order.
import { setTimeout as sleep } from 'node:timers/promises';
import { register } from 'tsx/esm/api';

register();
const worker = await import('../../src/audio/worker.ts');
let batches = 0;

export async function decodeFrames(batch) {
  if (batches++ % 3 === 0) await sleep(15);
  return worker.decodeFrames(batch);
}

export const encodeReply = worker.encodeReply;
