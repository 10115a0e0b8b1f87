// The stream-mode frame path: each media payload is decoded once; speech-to-text receives exactly
// the frame's bytes, and VAD (from the μ-law, no PCM) ends utterances where VAD on PCM would.
import type { RecognitionStream } from '@switchboard/sdk';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AudioWorkerPool } from '../../src/audio/audio-worker-pool.js';
import { decodeMulaw, encodeMulaw } from '../../src/audio/g711.js';
import { InboundCallAudio, type InboundAudioSink, type InboundCallOptions } from '../../src/audio/inbound-call-audio.js';
import { VoiceActivityDetector, frameFeatures } from '../../src/audio/vad.js';
import type { Store } from '../../src/store/store.js';
import { StreamCall } from '../../src/voice/stream-call.js';
import type { VoiceService } from '../../src/voice/voice-service.js';
import { concat, mix, noise, speechLike } from '../audio/signals.js';

const FRAME = 160;

/** What the speech-to-text driver was given. */
class RecordingStream implements RecognitionStream {
  readonly writes: Buffer[] = [];
  finalized = 0;
  write(audio: Buffer): void {
    this.writes.push(audio);
  }
  finalize(): Promise<string> {
    this.finalized++;
    return Promise.resolve('');
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('stream call frame path', () => {
  it('decodes each payload once: STT gets the frame bytes, VAD on μ-law ends the same utterances as VAD on PCM', async () => {
    const pcm = mix(concat(new Int16Array(3200), speechLike(9600), new Int16Array(8000), speechLike(4800), new Int16Array(8000)), noise(33_600, 30, 5));
    const mulaw = encodeMulaw(pcm.subarray(0, Math.floor(pcm.length / FRAME) * FRAME));
    const payloads: string[] = [];
    for (let i = 0; i < mulaw.length; i += FRAME) payloads.push(Buffer.from(mulaw.subarray(i, i + FRAME)).toString('base64'));

    // VAD as it ran before, on the decoded PCM of each frame.
    const reference = new VoiceActivityDetector();
    let utterances = 0;
    for (const payload of payloads) if (reference.push(frameFeatures(decodeMulaw(Buffer.from(payload, 'base64'))), 20)?.type === 'speech-end') utterances++;
    assert.equal(utterances, 2, 'the signal holds two utterances');

    const stt = new RecordingStream();
    const opened: InboundCallOptions[] = [];
    const sink: InboundAudioSink = {
      enqueue: () => assert.fail('a stream call needs no PCM: nothing should be batched for decoding'),
      forget: () => undefined,
      handled: () => undefined,
    };
    const pool = { openCall: (options: InboundCallOptions) => (opened.push(options), new InboundCallAudio(sink, options)) } as unknown as AudioWorkerPool;
    const voice = { stt: () => ({ open: async () => stt }), sessions: { get: () => undefined }, streamStart: () => ({ callSid: 'CA1', streamSid: 'MZ1' }) } as unknown as VoiceService;
    let hungUp = 0;
    const call = new StreamCall(voice, {} as Store, 'agent-1', () => hungUp++, pool).attach(() => undefined);

    await call.handle({ event: 'start', start: { streamSid: 'MZ1', callSid: 'CA1' } });
    assert.equal(hungUp, 1, 'no session matches, so the call is hung up (the stream stays open until the socket closes)');
    assert.equal(opened[0]?.pcm, false);
    for (const payload of payloads) await call.handle({ event: 'media', media: { payload } });
    await new Promise((r) => setImmediate(r));

    assert.equal(stt.writes.length, payloads.length);
    stt.writes.forEach((bytes, i) => assert.deepEqual(bytes, Buffer.from(payloads[i]!, 'base64'), `frame ${i}`));
    assert.deepEqual(Buffer.concat(stt.writes), Buffer.from(mulaw), 'the frames STT kept were not overwritten');
    assert.equal(stt.finalized, utterances, 'each utterance VAD ends is finalized once');
    call.closed();
  });
});
