import { Writable } from 'node:stream';
import { pino } from 'pino';

/** A pino logger whose JSON lines land in an array, at `level`. */
export function capturingLogger(level: pino.Level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level, base: undefined }, sink) };
}
