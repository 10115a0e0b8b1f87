// Micro-benchmark of recording a stream-mode call, in CPU per second of call, on this thread:
//   frames: each 20 ms caller frame kept as it arrives, and each 20 ms reply frame placed on the
//           call's clock (the agent speaking the whole time: the dearest case);
//   wav:    the recording made once at the call's end (μ-law decoded, the two legs interleaved);
//   write:  the file written (writeFile of the WAV, then rename), as CallRecordings does.
// Memory is not measured: a recorded call holds its two legs as μ-law, 16,000 bytes a second, until it ends.
// Run: node --conditions=switchboard-source --import tsx test/bench/voice-recording.ts [calls] [seconds]
import { mkdtempSync, rmSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeMulaw } from '../../runtime/src/audio/g711.js';
import { CallRecorder } from '../../runtime/src/voice/call-recorder.js';

const CALLS = Number(process.argv[2] ?? 50);
const SECONDS = Number(process.argv[3] ?? 60);
const ROUNDS = 5;
const FRAMES = SECONDS * 50;

/** A second of a voiced test signal as 50 μ-law frames. */
function frames(): Uint8Array[] {
  const samples = new Int16Array(8000);
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 140 * i) / 8000));
  const mulaw = encodeMulaw(samples);
  return Array.from({ length: 50 }, (_, n) => mulaw.slice(n * 160, (n + 1) * 160));
}

const cpuMs = (work: () => void | Promise<void>) => async () => {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

async function round(dir: string): Promise<{ frames: number; wav: number; write: number }> {
  const source = frames();
  const recorders: CallRecorder[] = Array.from({ length: CALLS }, () => new CallRecorder());
  // One caller and one reply frame per call per 20 ms (decoding the payload is the call's, not the recorder's).
  const framesMs = await cpuMs(() => {
    for (let f = 0; f < FRAMES; f++) {
      for (const recorder of recorders) {
        recorder.caller(source[f % 50]!);
        recorder.agent(source[(f + 25) % 50]!);
      }
    }
  })();
  const wavs: Buffer[][] = [];
  const wavMs = await cpuMs(() => {
    for (const recorder of recorders) wavs.push([...recorder.wav()]);
  })();
  const writeMs = await cpuMs(async () => {
    await Promise.all(
      wavs.map(async (wav, n) => {
        const path = join(dir, `ses_bench${n}.wav`);
        await writeFile(`${path}.part`, wav, { mode: 0o600 });
        await rename(`${path}.part`, path);
      }),
    );
  })();
  const callSeconds = CALLS * SECONDS;
  return { frames: framesMs / callSeconds, wav: wavMs / callSeconds, write: writeMs / callSeconds };
}

const dir = mkdtempSync(join(tmpdir(), 'sb-bench-recording-'));
try {
  const rows: Awaited<ReturnType<typeof round>>[] = [];
  for (let r = 0; r < ROUNDS; r++) rows.push(await round(dir));
  const median = (key: 'frames' | 'wav' | 'write') => rows.map((row) => row[key]).sort((a, b) => a - b)[Math.floor(rows.length / 2)]!;
  const f = median('frames');
  const w = median('wav');
  const io = median('write');
  console.log(`recording ${CALLS} calls of ${SECONDS} s, median of ${ROUNDS} rounds, ms of CPU per call-second:`);
  console.log(`  frames (caller + reply each 20 ms)  ${f.toFixed(4)}`);
  console.log(`  wav at the call's end               ${w.toFixed(4)}`);
  console.log(`  file write                          ${io.toFixed(4)}`);
  console.log(`  total                               ${(f + w + io).toFixed(4)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
