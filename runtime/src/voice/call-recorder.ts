import { wavFile } from '@switchboard/sdk';
import { decodeMulaw } from '../audio/g711.js';

/** Stream-mode audio is 8 kHz μ-law both ways. */
const SAMPLE_RATE = 8000;

/**
 * Both legs of a stream-mode call as they are heard, on one clock: the caller's μ-law frames in order
 * of arrival (the provider sends audio continuously, silence included, so their count is the call's
 * time), and each frame of the agent's reply placed at the caller's time when it was sent. Frames
 * are kept as they come (no copy, no decoding); the WAV — 16-bit PCM, caller left, agent right — is
 * made once, when the call ends.
 */
export class CallRecorder {
  readonly #caller: Uint8Array[] = [];
  #callerBytes = 0;
  readonly #agent: { at: number; frame: Uint8Array }[] = [];
  #agentEnd = 0;

  /** A frame of the caller's audio arrived. */
  caller(mulaw: Uint8Array): void {
    this.#caller.push(mulaw);
    this.#callerBytes += mulaw.length;
  }

  /** A frame of the agent's reply left for the caller: heard from now, or after the frame before it. */
  agent(mulaw: Uint8Array): void {
    const at = Math.max(this.#agentEnd, this.#callerBytes);
    this.#agent.push({ at, frame: mulaw });
    this.#agentEnd = at + mulaw.length;
  }

  /** Seconds of audio recorded so far. */
  get seconds(): number {
    return Math.max(this.#callerBytes, this.#agentEnd) / SAMPLE_RATE;
  }

  /** The recording: a stereo 8 kHz 16-bit PCM WAV file, the caller left and the agent right. */
  wav(): Buffer {
    const samples = Math.max(this.#callerBytes, this.#agentEnd);
    const caller = new Int16Array(samples);
    let at = 0;
    for (const frame of this.#caller) {
      decodeMulaw(frame, caller.subarray(at, at + frame.length));
      at += frame.length;
    }
    const agent = new Int16Array(samples);
    for (const { at: start, frame } of this.#agent) decodeMulaw(frame, agent.subarray(start, start + frame.length));
    const stereo = new Int16Array(samples * 2);
    for (let i = 0; i < samples; i++) {
      stereo[2 * i] = caller[i]!;
      stereo[2 * i + 1] = agent[i]!;
    }
    return wavFile(Buffer.from(stereo.buffer, stereo.byteOffset, stereo.byteLength), SAMPLE_RATE, 2);
  }
}
