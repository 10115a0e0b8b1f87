// Piscina worker entry: runs the audio tasks and moves their result buffers back without copying.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { decodeFrames as decode, encodeReply as encode, type DecodedBatch, type EncodedReply, type InboundBatch, type ReplyTask } from './tasks.js';

function moving<T extends object>(value: T, buffers: ArrayBufferLike[]): T {
  return move({ [transferableSymbol]: buffers, [valueSymbol]: value } as never) as unknown as T;
}

/** Worker task: decodes a batch of inbound frames of many calls. */
export function decodeFrames(batch: InboundBatch): DecodedBatch {
  const result = decode(batch);
  return moving(result, [result.pcm.buffer, result.spans.buffer, result.features.buffer]);
}

/** Worker task: turns synthesized audio into call audio. */
export function encodeReply(task: ReplyTask): EncodedReply {
  const result = encode(task);
  return moving(result, [result.mulaw.buffer]);
}
