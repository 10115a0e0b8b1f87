// Rational-factor polyphase FIR resampling (up by L, low-pass, down by M) for 16-bit PCM.
// The low-pass is a Kaiser-windowed sinc designed for STOPBAND_DB of rejection, with its
// transition band just below the lower of the two Nyquist frequencies, so nothing above the
// narrower band survives (no aliasing going down, no images going up).

/** Rejection the filter is designed for, in dB. */
const STOPBAND_DB = 65;
/** Passband edge as a fraction of the lower Nyquist frequency; the stopband starts at 1.0. */
const PASSBAND_EDGE = 0.84;
/** Largest up/down factor accepted; keeps the coefficient table small. */
const MAX_FACTOR = 12;

/** The polyphase low-pass for one rate pair, shared by every resampler of that pair. */
export interface ResamplingKernel {
  readonly up: number;
  readonly down: number;
  /** Taps per phase; every output sample costs this many multiply-adds. */
  readonly taps: number;
  /** `up` phases of `taps` coefficients each, time-reversed so the inner loop walks forward. */
  readonly phases: Float64Array;
  /** Delay of the filter in output samples (a whole number: half the prototype length at the output rate). */
  readonly delay: number;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** Modified Bessel function of the first kind, order 0 (power series; converges fast for Kaiser betas). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const half = x / 2;
  for (let k = 1; k < 50; k++) {
    term *= (half / k) * (half / k);
    sum += term;
    if (term < sum * 1e-16) break;
  }
  return sum;
}

function design(up: number, down: number): ResamplingKernel {
  // Work at the prototype rate (input rate × up) in cycles per sample.
  const nyquist = 0.5 / Math.max(up, down);
  const passEdge = PASSBAND_EDGE * nyquist;
  const cutoff = (passEdge + nyquist) / 2;
  const transition = 2 * Math.PI * (nyquist - passEdge);
  const beta = 0.1102 * (STOPBAND_DB - 8.7);
  const estimated = Math.ceil((STOPBAND_DB - 8) / (2.285 * transition)) + 1;
  // An odd length whose centre falls on an output sample makes the delay a whole number of
  // output samples, so a one-shot resample can be aligned with its input exactly.
  const length = estimated + ((2 * down - ((estimated - 1) % (2 * down))) % (2 * down));
  const taps = Math.ceil(length / up);
  const centre = (length - 1) / 2;
  // Zero-padded to `taps * up` so every phase has the same number of taps.
  const prototype = new Float64Array(taps * up);
  const i0Beta = besselI0(beta);
  let sum = 0;
  for (let k = 0; k < length; k++) {
    const x = k - centre;
    const sinc = x === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * x) / (Math.PI * x);
    const r = x / centre;
    const window = besselI0(beta * Math.sqrt(Math.max(0, 1 - r * r))) / i0Beta;
    prototype[k] = sinc * window;
    sum += prototype[k]!;
  }
  // Unity gain at DC after zero-stuffing: the whole filter sums to `up`.
  const phases = new Float64Array(taps * up);
  for (let p = 0; p < up; p++) {
    for (let j = 0; j < taps; j++) phases[p * taps + j] = (prototype[p + (taps - 1 - j) * up]! * up) / sum;
  }
  return { up, down, taps, phases, delay: centre / down };
}

const kernels = new Map<string, ResamplingKernel>();

/** The (cached) kernel converting `from` Hz to `to` Hz. */
export function resamplingKernel(from: number, to: number): ResamplingKernel {
  if (!Number.isInteger(from) || !Number.isInteger(to) || from <= 0 || to <= 0) {
    throw new RangeError(`sample rates must be positive integers, got ${from} and ${to}`);
  }
  const key = `${from}:${to}`;
  let kernel = kernels.get(key);
  if (!kernel) {
    const g = gcd(from, to);
    const up = to / g;
    const down = from / g;
    if (up > MAX_FACTOR || down > MAX_FACTOR) throw new RangeError(`no resampling kernel for ${from} → ${to} Hz (factor ${up}/${down})`);
    kernel = design(up, down);
    kernels.set(key, kernel);
  }
  return kernel;
}

/**
 * A streaming resampler for one audio stream. It keeps the filter history and phase between
 * chunks, so any chunking of the input yields exactly the samples one call over the whole input would.
 */
export class Resampler {
  readonly kernel: ResamplingKernel;
  /** Input samples of history the filter keeps (taps − 1). */
  readonly historyLength: number;
  /** history followed by the current chunk, as doubles. */
  private work: Float64Array;
  /** Prototype-rate time of the next output sample, relative to the current chunk's first sample. */
  private phase = 0;

  constructor(
    readonly from: number,
    readonly to: number,
  ) {
    this.kernel = resamplingKernel(from, to);
    this.historyLength = this.kernel.taps - 1;
    this.work = new Float64Array(this.historyLength + 480);
  }

  /** How many samples the next `process` of `inputLength` samples returns. */
  outputLength(inputLength: number): number {
    const end = inputLength * this.kernel.up;
    return this.phase >= end ? 0 : Math.ceil((end - this.phase) / this.kernel.down);
  }

  /** Resamples the next chunk into `output` (allocated when omitted); returns the samples written. */
  process(input: Int16Array, output?: Int16Array): Int16Array {
    const count = this.outputLength(input.length);
    const out = output ?? new Int16Array(count);
    if (out.length < count) throw new RangeError(`output holds ${out.length} samples, ${count} needed`);
    const h = this.historyLength;
    if (this.work.length < h + input.length) {
      const grown = new Float64Array(h + input.length);
      grown.set(this.work.subarray(0, h));
      this.work = grown;
    }
    const work = this.work;
    for (let i = 0; i < input.length; i++) work[h + i] = input[i]!;
    this.run(input.length, out);
    return out.length === count ? out : out.subarray(0, count);
  }

  /** Pushes the filter's remaining output through with silence; the stream can continue afterwards. */
  flush(output?: Int16Array): Int16Array {
    return this.process(new Int16Array(this.historyLength), output);
  }

  /**
   * Forgets the stream. With `history`, primes the filter as if those samples (the newest last)
   * had just been processed on a frame boundary: how a stateless worker continues a call's stream.
   */
  reset(history?: Int16Array): void {
    const h = this.historyLength;
    this.work.fill(0, 0, h);
    if (history) {
      const n = Math.min(h, history.length);
      for (let i = 0; i < n; i++) this.work[h - n + i] = history[history.length - n + i]!;
    }
    this.phase = 0;
  }

  private run(inputLength: number, out: Int16Array): void {
    const { up, down, taps, phases } = this.kernel;
    const work = this.work;
    const end = inputLength * up;
    let t = this.phase;
    let o = 0;
    while (t < end) {
      const k = Math.floor(t / up);
      const base = (t - k * up) * taps;
      let acc = 0;
      // work[k + j] is input sample k − (taps − 1) + j; phases are stored reversed to match.
      for (let j = 0; j < taps; j++) acc += phases[base + j]! * work[k + j]!;
      const s = Math.round(acc);
      out[o++] = s > 32767 ? 32767 : s < -32768 ? -32768 : s;
      t += down;
    }
    this.phase = t - end;
    // Keep the newest taps − 1 samples as history for the next chunk.
    this.work.copyWithin(0, inputLength, inputLength + this.historyLength);
  }
}

/**
 * Resamples a whole clip at once, compensating the filter delay: the result is aligned with the
 * input and holds ceil(length × to / from) samples. Used for synthesized replies.
 */
export function resample(input: Int16Array, from: number, to: number): Int16Array {
  if (from === to) return input.slice();
  const resampler = new Resampler(from, to);
  const { up, down } = resampler.kernel;
  const length = Math.ceil((input.length * up) / down);
  const padded = new Int16Array(input.length + resampler.historyLength);
  padded.set(input);
  const full = resampler.process(padded);
  const skip = resampler.kernel.delay;
  const out = new Int16Array(length);
  out.set(full.subarray(skip, skip + length));
  return out;
}
