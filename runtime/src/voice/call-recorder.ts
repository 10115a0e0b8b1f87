import { wavHeader } from '@switchboard/sdk';
import { MULAW_SILENCE, decodeMulaw } from '../audio/g711.js';

/** Stream-mode audio is 8 kHz μ-law both ways. */
const SAMPLE_RATE = 8000;
/** A leg is kept in blocks of one second of μ-law. */
const BLOCK = SAMPLE_RATE;
/** Each μ-law code's 16-bit sample. */
const DECODED = decodeMulaw(Uint8Array.from({ length: 256 }, (_, code) => code));

/**
 * One leg's μ-law on the call's clock, copied into one-second blocks: a frame's own buffer is not
 * kept, since a small decoded payload is a slice of a shared 8 KiB pool slab it would pin.
 */
class Leg {
  readonly #blocks: Buffer[] = [];
  length = 0;

  write(at: number, mulaw: Uint8Array): void {
    for (let done = 0; done < mulaw.length; ) {
      const offset = at + done;
      const index = Math.floor(offset / BLOCK);
      while (this.#blocks.length <= index) this.#blocks.push(Buffer.alloc(BLOCK, MULAW_SILENCE));
      const into = offset % BLOCK;
      const n = Math.min(mulaw.length - done, BLOCK - into);
      this.#blocks[index]!.set(mulaw.subarray(done, done + n), into);
      done += n;
    }
    this.length = Math.max(this.length, at + mulaw.length);
  }

  /** Decodes second `index` of the leg into one channel of interleaved 16-bit stereo `out` (left: 0, right: 1); silence stays 0. */
  decodeInto(index: number, out: Int16Array, channel: 0 | 1): void {
    const block = this.#blocks[index];
    if (!block) return;
    for (let i = 0, at = channel; at < out.length; i++, at += 2) out[at] = DECODED[block[i]!]!;
  }
}

/**
 * Both legs of a stream-mode call as they are heard, on one clock: the caller's μ-law frames in order
 * of arrival (the provider sends audio continuously, silence included, so their count is the call's
 * time), and each frame of the agent's reply placed at the caller's time when it was sent. Frames are
 * copied as μ-law (16 KB a second for both legs); the WAV — 16-bit PCM, caller left, agent right — is
 * made when the call ends.
 */
export class CallRecorder {
  readonly #caller = new Leg();
  readonly #agent = new Leg();

  /** A frame of the caller's audio arrived. */
  caller(mulaw: Uint8Array): void {
    this.#caller.write(this.#caller.length, mulaw);
  }

  /** A frame of the agent's reply left for the caller: heard from now, or after the frame before it. */
  agent(mulaw: Uint8Array): void {
    this.#agent.write(Math.max(this.#agent.length, this.#caller.length), mulaw);
  }

  /** Seconds of audio recorded so far. */
  get seconds(): number {
    return Math.max(this.#caller.length, this.#agent.length) / SAMPLE_RATE;
  }

  /**
   * The recording, a stereo 8 kHz 16-bit PCM WAV file (the caller left, the agent right), made a
   * second at a time as it is consumed: writing a long call's file does not hold the event loop
   * that paces the other calls' audio.
   */
  *wav(): Generator<Buffer> {
    const samples = Math.max(this.#caller.length, this.#agent.length);
    yield wavHeader(samples * 4, SAMPLE_RATE, 2);
    for (let index = 0; index * BLOCK < samples; index++) {
      const stereo = new Int16Array(Math.min(BLOCK, samples - index * BLOCK) * 2);
      this.#caller.decodeInto(index, stereo, 0);
      this.#agent.decodeInto(index, stereo, 1);
      yield Buffer.from(stereo.buffer, stereo.byteOffset, stereo.byteLength);
    }
  }
}
