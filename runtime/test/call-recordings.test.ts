import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertWav } from '@switchboard/sdk/testing';
import { encodeMulaw } from '../src/audio/g711.js';
import { openStore } from '../src/internal.js';
import { InboxRetention } from '../src/inbox/retention.js';
import { createLogger } from '../src/logger.js';
import { CallRecorder } from '../src/voice/call-recorder.js';
import { CallRecordings } from '../src/voice/call-recordings.js';

const logger = createLogger({ level: 'silent', pretty: false });
const DAY_MS = 86_400_000;

/** 20 ms of a tone at `level` as μ-law (160 bytes). */
function frame(level: number): Uint8Array {
  const samples = new Int16Array(160);
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(level * Math.sin((2 * Math.PI * 440 * i) / 8000));
  return encodeMulaw(samples);
}

/** The mean absolute sample of one channel of a stereo 16-bit WAV, between two seconds. */
function loudness(wav: Buffer, channel: 0 | 1, fromS: number, toS: number): number {
  const { dataOffset } = assertWav(wav);
  let sum = 0;
  const from = Math.round(fromS * 8000);
  const to = Math.round(toS * 8000);
  for (let i = from; i < to; i++) sum += Math.abs(wav.readInt16LE(dataOffset + (2 * i + channel) * 2));
  return sum / (to - from);
}

describe('the recorder of a stream call', () => {
  it('puts the caller left and each reply frame right, at the caller time it was sent', () => {
    const recorder = new CallRecorder();
    // One second of the caller; the agent's 0.5 s reply starts 0.25 s in (while the caller still speaks).
    for (let n = 0; n < 50; n++) {
      recorder.caller(frame(n < 25 ? 8000 : 0));
      if (n === 12) for (let k = 0; k < 25; k++) recorder.agent(frame(12000));
    }
    assert.equal(recorder.seconds, 1);
    const wav = Buffer.concat([...recorder.wav()]);
    const info = assertWav(wav);
    assert.deepEqual([info.format, info.channels, info.sampleRate, info.bitsPerSample, info.seconds], [1, 2, 8000, 16, 1]);
    assert.ok(loudness(wav, 0, 0, 0.5) > 3000, 'the caller spoke for the first half second');
    assert.ok(loudness(wav, 0, 0.5, 1) < 50, 'then was silent');
    assert.ok(loudness(wav, 1, 0, 0.26) < 50, 'the agent had not started');
    assert.ok(loudness(wav, 1, 0.27, 0.74) > 5000, 'its reply, from when it was sent');
    assert.ok(loudness(wav, 1, 0.77, 1) < 50, 'and not after');
  });

  it('lasts as long as the agent spoke past the caller, when replies were sent ahead of the caller audio', () => {
    const recorder = new CallRecorder();
    recorder.caller(frame(1000));
    for (let k = 0; k < 10; k++) recorder.agent(frame(1000));
    assert.equal(recorder.seconds, 0.22);
    assert.equal(assertWav(Buffer.concat([...recorder.wav()])).seconds, 0.22);
  });
});

describe('call recordings on disk', () => {
  it('stores a recording under the directory, names it on the call, and the retention sweep removes both', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-recordings-'));
    const store = await openStore({ dataDir: dir });
    try {
      const now = new Date().toISOString();
      const call = (n: number) => ({
        callSid: `CA${String(n).repeat(32)}`, sessionId: `ses_keep${n}`, agentId: 'keeper', direction: 'outbound' as const, mode: 'stream' as const,
        from: '+14155550100', to: '+14155550101', status: 'completed', durationSeconds: 3, cost: null, createdAt: now, updatedAt: now,
      });
      await store.calls.insert(call(1));
      await store.calls.insert(call(2));
      const recordings = new CallRecordings(store, join(dir, 'recordings'), 7, logger);
      const recorder = new CallRecorder();
      for (let n = 0; n < 100; n++) recorder.caller(frame(4000));
      await recordings.save('ses_keep1', recorder.wav(), recorder.seconds);
      // A call not recorded has nothing stored, and nothing named.
      const one = await store.calls.detail('ses_keep1');
      assert.deepEqual([one?.recording?.file, one?.recording?.seconds], ['ses_keep1.wav', 2]);
      assert.equal((await store.calls.detail('ses_keep2'))?.recording, null);
      const path = recordings.pathOf(one!.recording!.file)!;
      assert.equal(assertWav(readFileSync(path)).seconds, 2);
      assert.equal(recordings.pathOf('../ses_keep1.wav'), undefined, 'only names this store makes');
      // A session whose call row is gone keeps no file.
      await recordings.save('ses_gone', recorder.wav(), recorder.seconds);
      assert.equal(existsSync(join(dir, 'recordings', 'ses_gone.wav')), false);

      const retention = new InboxRetention(store, 30, logger).also('call recording', (at) => recordings.sweep(at));
      assert.equal(await retention.sweep(Date.now() + 6 * DAY_MS), 0, 'within the retention');
      assert.ok(existsSync(path));
      assert.equal(await retention.sweep(Date.now() + 8 * DAY_MS), 1, 'the recording, past its retention');
      assert.equal(existsSync(path), false, 'its file is deleted');
      assert.equal((await store.calls.detail('ses_keep1'))?.recording, null, 'and the call names none');
      assert.equal((await store.calls.detail('ses_keep1'))?.status, 'completed', 'the call itself stays');
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
