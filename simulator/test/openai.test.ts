import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { speechDurationMs, startSimulator, type Simulator } from '../src/index.js';

describe("OpenAI's speech API", () => {
  let sim: Simulator;
  const post = (body: unknown, key = sim.credentials.openai.apiKey) =>
    fetch(`${sim.baseUrls.openai}/audio/speech`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const speech = { model: 'gpt-4o-mini-tts', voice: 'alloy', input: 'Good evening.', response_format: 'pcm' };

  before(async () => {
    sim = await startSimulator({ statusCallbacks: false });
  });
  after(() => sim.close());

  it('speaks the input as 24 kHz 16-bit PCM, or WAV, as long as the text', async () => {
    const res = await post(speech);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'audio/pcm');
    const pcm = Buffer.from(await res.arrayBuffer());
    assert.equal(pcm.length, 2 * ((24_000 * speechDurationMs(speech.input)) / 1000));
    const wav = Buffer.from(await (await post({ ...speech, response_format: 'wav' })).arrayBuffer());
    assert.equal(wav.subarray(0, 4).toString(), 'RIFF');
    assert.equal(wav.readUInt32LE(24), 24_000);
    assert.equal(sim.requests('openai').at(-1)?.path, '/openai/v1/audio/speech');
  });

  it("refuses a missing or wrong key, an unknown model or voice, and a format it cannot make, in OpenAI's error shape", async () => {
    const noKey = await fetch(`${sim.baseUrls.openai}/audio/speech`, { method: 'POST', body: '{}' });
    assert.equal(noKey.status, 401);
    assert.equal(((await noKey.json()) as { error: { type: string } }).error.type, 'invalid_request_error');
    const wrong = await post(speech, 'sk-wrong');
    assert.equal(wrong.status, 401);
    assert.equal(((await wrong.json()) as { error: { code: string } }).error.code, 'invalid_api_key');
    assert.equal((await post({ ...speech, model: 'gpt-9' })).status, 404);
    const voice = await post({ ...speech, voice: 'Rachel' });
    assert.equal(voice.status, 400);
    assert.deepEqual(Object.keys(((await voice.json()) as { error: object }).error), ['message', 'type', 'param', 'code']);
    assert.equal((await post({ ...speech, response_format: 'mp3' })).status, 400);
    assert.equal((await post({ ...speech, input: ' ' })).status, 400);
  });

  it('lists its models, and answers faults as OpenAI does', async () => {
    const models = (await (await fetch(`${sim.baseUrls.openai}/models`, { headers: { authorization: `Bearer ${sim.credentials.openai.apiKey}` } })).json()) as { object: string; data: { id: string }[] };
    assert.equal(models.object, 'list');
    assert.ok(models.data.some((m) => m.id === 'gpt-4o-mini-tts'));
    sim.faults.add({ provider: 'openai', status: 429, times: 1 });
    const limited = await post(speech);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '1');
    assert.equal(((await limited.json()) as { error: { code: string } }).error.code, 'rate_limit_exceeded');
    assert.equal((await post(speech)).status, 200);
  });
});
