import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { decodeMulaw, startSimulator, type Simulator } from '../src/index.js';

const VOICE = '21m00Tcm4TlvDq8ikWAM';

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  return Buffer.from(await new Response(stream).arrayBuffer());
}

/** RMS of each 20 ms frame. */
function frameLevels(samples: Int16Array, sampleRate: number): number[] {
  const size = Math.round(sampleRate * 0.02);
  const levels: number[] = [];
  for (let start = 0; start + size <= samples.length; start += size) {
    let sum = 0;
    for (let i = start; i < start + size; i++) sum += samples[i]! ** 2;
    levels.push(Math.sqrt(sum / size));
  }
  return levels;
}

function pcmSamples(bytes: Buffer): Int16Array {
  const out = new Int16Array(bytes.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readInt16LE(i * 2);
  return out;
}

describe('ElevenLabs API through @elevenlabs/elevenlabs-js', () => {
  let sim: Simulator;
  let client: ElevenLabsClient;

  before(async () => {
    sim = await startSimulator();
    client = new ElevenLabsClient({ apiKey: sim.credentials.elevenlabs.apiKey, baseUrl: sim.baseUrls.elevenlabs, maxRetries: 0 });
  });
  after(() => sim.close());

  it('lists voices and the user, in shapes the SDK parses', async () => {
    const { voices } = await client.voices.getAll();
    assert.ok(voices.some((v) => v.voiceId === VOICE && v.name === 'Rachel'));
    const user = await client.user.get();
    assert.equal(user.subscription.tier, 'creator');
    assert.equal(user.seatType, 'workspace_admin');
  });

  it('speaks μ-law 8 kHz: 60 ms per character, speech-like, not silence', async () => {
    const text = 'hello there, world';
    const audio = await bytesOf(await client.textToSpeech.convert(VOICE, { text, outputFormat: 'ulaw_8000' }));
    assert.equal(audio.length, (8000 * text.length * 60) / 1000);
    const levels = frameLevels(decodeMulaw(audio), 8000);
    const loud = Math.max(...levels);
    assert.ok(loud > 1500, `peak frame level ${loud}`);
    assert.ok(Math.min(...levels) < loud * 0.2, 'pauses between words');
    assert.ok(levels.filter((l) => l > loud * 0.3).length > levels.length / 3, 'mostly voiced');
  });

  for (const [format, rate] of [['pcm_8000', 8000], ['pcm_16000', 16000], ['pcm_22050', 22050], ['pcm_24000', 24000], ['pcm_44100', 44100]] as const) {
    it(`speaks ${format} as 16-bit little-endian mono at ${rate} Hz`, async () => {
      const audio = await bytesOf(await client.textToSpeech.convert(VOICE, { text: 'Hi', outputFormat: format }));
      assert.equal(audio.length, Math.round((rate * 300) / 1000) * 2, 'minimum 300 ms');
      const levels = frameLevels(pcmSamples(audio), rate);
      assert.ok(Math.max(...levels) > 1500);
    });
  }

  it('streams from /stream with the same audio', async () => {
    const full = await bytesOf(await client.textToSpeech.convert(VOICE, { text: 'streaming test', outputFormat: 'pcm_16000' }));
    const streamed = await bytesOf(await client.textToSpeech.stream(VOICE, { text: 'streaming test', outputFormat: 'pcm_16000' }));
    assert.ok(streamed.equals(full));
    assert.ok(sim.requests('elevenlabs').some((r) => r.path.endsWith('/stream') && r.status === 200));
  });

  it('refuses formats it cannot produce with 422 {detail:{status,message}}', async () => {
    await assert.rejects(client.textToSpeech.convert(VOICE, { text: 'x', outputFormat: 'mp3_44100_128' }), (err: ElevenLabsError) => {
      assert.equal(err.statusCode, 422);
      const detail = (err.body as { detail: { status: string; message: string } }).detail;
      assert.equal(detail.status, 'invalid_output_format');
      assert.match(detail.message, /ulaw_8000/);
      return true;
    });
  });

  it('refuses a wrong API key with 401', async () => {
    const wrong = new ElevenLabsClient({ apiKey: 'sk_wrong', baseUrl: sim.baseUrls.elevenlabs, maxRetries: 0 });
    await assert.rejects(wrong.voices.getAll(), (err: ElevenLabsError) => err.statusCode === 401);
  });
});
