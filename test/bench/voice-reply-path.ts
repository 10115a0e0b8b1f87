// Micro-benchmark of the stream-mode reply path: CALLS calls each play a reply of SECONDS of μ-law
// through the server's FramePacer, every message its Media Streams JSON written to its own loopback
// socket (a child process reads and drops them, so its CPU is not counted), as the server paces
// speech out. Compares 20 ms messages (lead 2) with the 100 ms messages (lead 1) stream calls send;
// prints this process's CPU per call-second of reply audio, the median of ROUNDS rounds each.
// Run: node --conditions=switchboard-source --import tsx test/bench/voice-reply-path.ts [calls] [seconds]
import { spawn } from 'node:child_process';
import { Buffer } from 'node:buffer';
import { connect, type Socket } from 'node:net';
import { splitFrames } from '../../runtime/src/audio/framing.js';
import { MULAW_SILENCE } from '../../runtime/src/audio/g711.js';
import { FramePacer } from '../../runtime/src/audio/pacer.js';

const CALLS = Number(process.argv[2] ?? 200);
const SECONDS = Number(process.argv[3] ?? 3);
const ROUNDS = 3;

const sink = spawn(process.execPath, ['-e', "const s = require('net').createServer((c) => c.on('data', () => {})).listen(0, '127.0.0.1', () => console.log(s.address().port));"], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((resolve) => sink.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
const sockets = await Promise.all(
  Array.from({ length: CALLS }, () => new Promise<Socket>((resolve) => { const s = connect(port, '127.0.0.1', () => resolve(s.setNoDelay(true))); })),
);
const reply = new Uint8Array(8000 * SECONDS).fill(MULAW_SILENCE ^ 0x11);

async function play(messageMs: number, leadFrames: number): Promise<number> {
  const cpu = process.cpuUsage();
  await Promise.all(
    sockets.map((socket, i) => {
      const prefix = `{"event":"media","streamSid":"MZ${String(i).padStart(32, '0')}","media":{"payload":"`;
      const pacer = new FramePacer({
        frameMs: messageMs,
        leadFrames,
        send: (frame) => void socket.write(`${prefix}${Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength).toString('base64')}"}}`),
        mark: (name) => void socket.write(JSON.stringify({ event: 'mark', streamSid: 'MZ', mark: { name } })),
      });
      pacer.enqueue(splitFrames(reply, 8 * messageMs), 'reply');
      return pacer.drained();
    }),
  );
  const { user, system } = process.cpuUsage(cpu);
  return (user + system) / 1000 / (CALLS * SECONDS);
}

const variants = [
  { name: '20 ms messages, lead 2 (before)', ms: 20, lead: 2, runs: [] as number[] },
  { name: '100 ms messages, lead 1 (now)', ms: 100, lead: 1, runs: [] as number[] },
];
await play(20, 2); // warm-up
for (let round = 0; round < ROUNDS; round++) for (const v of variants) v.runs.push(await play(v.ms, v.lead));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`reply path, ${CALLS} calls × ${SECONDS} s of reply audio, median of ${ROUNDS} rounds (CPU of this process per call-second of reply audio):`);
for (const v of variants) console.log(`  ${v.name.padEnd(34)} ${median(v.runs).toFixed(3)} ms  (${v.runs.map((r) => r.toFixed(3)).join(', ')})`);
console.log(`  ratio now / before: ${(median(variants[1]!.runs) / median(variants[0]!.runs)).toFixed(2)}`);
for (const s of sockets) s.destroy();
sink.kill();
