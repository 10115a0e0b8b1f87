import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUDIO_FORMATS, assertCallStatusEvent, assertSynthesizedAudio, assertWellFormedXml } from '../src/testing/index.js';

/** `seconds` of a 440 Hz tone at a third of full scale, as 16-bit little-endian PCM. */
function tone(seconds: number, sampleRate: number): Buffer {
  const out = Buffer.alloc(Math.round(seconds * sampleRate) * 2);
  for (let i = 0; i < out.length / 2; i++) out.writeInt16LE(Math.round(11000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate)), i * 2);
  return out;
}

describe('assertWellFormedXml', () => {
  it('accepts TwiML documents and returns the root element', () => {
    assert.equal(assertWellFormedXml('<?xml version="1.0" encoding="UTF-8"?><Response/>'), 'Response');
    assert.equal(
      assertWellFormedXml('<Response><Say voice="Polly.Joanna">Hi &amp; bye</Say><!-- c --><Connect><Stream url="wss://x/y?a=1&amp;b=2"><Parameter name="a" value=\'b\'/></Stream></Connect></Response>\n'),
      'Response',
    );
  });

  for (const [label, text] of [
    ['unclosed element', '<Response><Say>Hi</Response>'],
    ['two roots', '<Response/><Response/>'],
    ['raw ampersand in text', '<Response><Say>Hi & bye</Say></Response>'],
    ['raw ampersand in an attribute', '<Response><Play loop="1&2">u</Play></Response>'],
    ['unquoted attribute', '<Response><Pause length=1/></Response>'],
    ['repeated attribute', '<Response><Pause length="1" length="2"/></Response>'],
    ['text outside the root', 'hello<Response/>'],
    ['no element at all', '<?xml version="1.0"?>'],
    ['string concatenation gone wrong', '<Response><Say>Hi</Say></Respons>'],
  ] as const) {
    it(`rejects a document with ${label}`, () => {
      assert.throws(() => assertWellFormedXml(text), { name: 'AssertionError' });
    });
  }
});

describe('assertSynthesizedAudio', () => {
  const text = 'Hello there, how can I help?';

  it('accepts speech-length audio in the requested format', () => {
    assertSynthesizedAudio({ audio: tone(1.5, 16000), format: 'pcm_16000', sampleRate: 16000 }, 'pcm_16000', text);
    const ulaw = Buffer.alloc(12000, 0x1f); // loud μ-law bytes, 1.5 s
    assertSynthesizedAudio({ audio: ulaw, format: 'ulaw_8000', sampleRate: 8000 }, 'ulaw_8000', text);
  });

  it('rejects the wrong format or rate, silence, half samples, and implausible lengths', () => {
    const fails = (audio: Buffer, format: keyof typeof AUDIO_FORMATS, sampleRate: number, asked: keyof typeof AUDIO_FORMATS = format) =>
      assert.throws(() => assertSynthesizedAudio({ audio, format, sampleRate }, asked, text), { name: 'AssertionError' });
    fails(tone(1.5, 16000), 'pcm_16000', 16000, 'pcm_24000');
    fails(tone(1.5, 16000), 'pcm_16000', 8000);
    fails(Buffer.alloc(24000 * 2), 'pcm_24000', 24000);
    fails(Buffer.concat([tone(1.5, 8000), Buffer.alloc(1)]), 'pcm_8000', 8000);
    fails(tone(0.05, 8000), 'pcm_8000', 8000);
    fails(tone(20, 8000), 'pcm_8000', 8000);
    fails(Buffer.alloc(12000, 0xff), 'ulaw_8000', 8000);
  });
});

describe('assertCallStatusEvent', () => {
  it('accepts a normalised event and rejects unknown statuses, negative durations and costs', () => {
    const event = { type: 'call-status', callSid: 'CA1', status: 'completed', durationSeconds: 12, cost: 0.02, direction: 'outbound' } as const;
    assertCallStatusEvent(event);
    assert.throws(() => assertCallStatusEvent({ ...event, status: 'initiated' }), { name: 'AssertionError' });
    assert.throws(() => assertCallStatusEvent({ ...event, durationSeconds: -1 }), { name: 'AssertionError' });
    assert.throws(() => assertCallStatusEvent({ ...event, cost: -0.02 }), { name: 'AssertionError' });
    assert.throws(() => assertCallStatusEvent({ ...event, callSid: '' }), { name: 'AssertionError' });
  });
});
