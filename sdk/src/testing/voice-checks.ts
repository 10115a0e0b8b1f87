import assert from 'node:assert/strict';
import type { AudioFormat, CallStatusEvent, SynthesizedAudio } from '../voice.js';

/** Sample rate and bytes per sample of each audio format. */
export const AUDIO_FORMATS: Readonly<Record<AudioFormat, { sampleRate: number; bytesPerSample: 1 | 2 }>> = {
  ulaw_8000: { sampleRate: 8000, bytesPerSample: 1 },
  pcm_8000: { sampleRate: 8000, bytesPerSample: 2 },
  pcm_16000: { sampleRate: 16000, bytesPerSample: 2 },
  pcm_24000: { sampleRate: 24000, bytesPerSample: 2 },
};

/** Call statuses a telephony driver normalises to. */
export const CALL_STATUSES: readonly string[] = ['queued', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'failed', 'canceled'];

/**
 * Asserts synthesised audio is in the requested format, holds sound rather than silence, and lasts
 * about as long as speaking `text` takes (between 50 and 5 characters a second, at least 0.2 s).
 */
export function assertSynthesizedAudio(result: SynthesizedAudio, format: AudioFormat, text: string): void {
  const expected = AUDIO_FORMATS[format];
  assert.ok(Buffer.isBuffer(result.audio), 'synthesize must resolve audio as a Buffer');
  assert.equal(result.format, format, `asked for ${format}, got ${String(result.format)}`);
  assert.equal(result.sampleRate, expected.sampleRate, `${format} is ${expected.sampleRate} Hz, got ${String(result.sampleRate)}`);
  assert.equal(result.audio.length % expected.bytesPerSample, 0, `${format} audio must hold whole ${expected.bytesPerSample}-byte samples`);
  const seconds = result.audio.length / expected.bytesPerSample / expected.sampleRate;
  const characters = [...text].length;
  const shortest = Math.max(0.2, characters / 50);
  const longest = 2 + characters / 5;
  assert.ok(seconds >= shortest && seconds <= longest, `${characters} characters of speech should last ${shortest}-${longest} s, got ${seconds.toFixed(2)} s`);
  assert.ok(peakLevel(result.audio, expected.bytesPerSample) > 300, `${format} audio is silent`);
}

/** Peak absolute 16-bit level; μ-law bytes are expanded first. */
function peakLevel(audio: Buffer, bytesPerSample: 1 | 2): number {
  let peak = 0;
  if (bytesPerSample === 2) {
    for (let i = 0; i + 1 < audio.length; i += 2) peak = Math.max(peak, Math.abs(audio.readInt16LE(i)));
    return peak;
  }
  for (const byte of audio) {
    const u = ~byte & 0xff;
    const exponent = (u >> 4) & 0x07;
    peak = Math.max(peak, ((((u & 0x0f) << 3) + 0x84) << exponent) - 0x84);
  }
  return peak;
}

/** Asserts a call status event has the documented shape. */
export function assertCallStatusEvent(event: CallStatusEvent): void {
  assert.equal(event.type, 'call-status', 'a call webhook must parse into type "call-status"');
  assert.ok(typeof event.callSid === 'string' && event.callSid.length > 0, 'callSid must be a non-empty string');
  assert.ok(CALL_STATUSES.includes(event.status), `status ${String(event.status)} is not one of ${CALL_STATUSES.join(', ')}`);
  if (event.durationSeconds !== null) {
    assert.ok(Number.isFinite(event.durationSeconds) && event.durationSeconds >= 0, `durationSeconds must be a number >= 0 or null, got ${String(event.durationSeconds)}`);
  }
  if (event.cost !== null) assert.ok(Number.isFinite(event.cost) && event.cost >= 0, `cost must be a USD amount >= 0 or null, got ${String(event.cost)}`);
  for (const field of ['from', 'to'] as const) {
    if (event[field] !== undefined) assert.equal(typeof event[field], 'string', `${field} must be a string when present`);
  }
  if (event.direction !== undefined) assert.ok(event.direction === 'inbound' || event.direction === 'outbound', `direction must be inbound or outbound, got ${String(event.direction)}`);
}

const NAME = '[A-Za-z_][\\w.:-]*';
const ATTRIBUTE = new RegExp(`^\\s+(${NAME})\\s*=\\s*("[^"<]*"|'[^'<]*')`);
const TAG = new RegExp(`^<(/?)(${NAME})`);
const ENTITY = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;

/**
 * Asserts `text` is one well-formed XML document (balanced elements, one root, quoted unique
 * attributes, known entities; no DTD) and returns its root element's name. Enough to check a
 * rendered TwiML answer without an XML dependency.
 */
export function assertWellFormedXml(text: string): string {
  let rest = text.replace(/^\uFEFF?\s*(<\?xml[^?]*\?>)?/, '');
  const open: string[] = [];
  let root: string | undefined;
  let closedRoot = false;
  while (rest.length > 0) {
    const lt = rest.indexOf('<');
    const chars = lt === -1 ? rest : rest.slice(0, lt);
    assert.ok(!ENTITY.test(chars), `unescaped & in text: ${chars.slice(0, 40)}`);
    assert.ok(open.length > 0 || chars.trim() === '', `text outside the root element: ${chars.trim().slice(0, 40)}`);
    if (lt === -1) break;
    rest = rest.slice(lt);
    if (rest.startsWith('<!--')) {
      const end = rest.indexOf('-->');
      assert.ok(end !== -1, 'unterminated comment');
      rest = rest.slice(end + 3);
      continue;
    }
    if (rest.startsWith('<![CDATA[')) {
      assert.ok(open.length > 0, 'CDATA outside the root element');
      const end = rest.indexOf(']]>');
      assert.ok(end !== -1, 'unterminated CDATA section');
      rest = rest.slice(end + 3);
      continue;
    }
    const tag = TAG.exec(rest);
    assert.ok(tag, `not a tag: ${rest.slice(0, 40)}`);
    const [whole, slash, name] = tag as unknown as [string, string, string];
    rest = rest.slice(whole.length);
    if (slash) {
      const close = /^\s*>/.exec(rest);
      assert.ok(close, `malformed closing tag </${name}`);
      rest = rest.slice(close[0].length);
      assert.equal(open.pop(), name, `</${name}> closes the wrong element`);
      if (open.length === 0) closedRoot = true;
      continue;
    }
    assert.ok(!closedRoot, `a second root element <${name}>`);
    root ??= name;
    const seen = new Set<string>();
    for (let attribute = ATTRIBUTE.exec(rest); attribute; attribute = ATTRIBUTE.exec(rest)) {
      const [all, key, value] = attribute as unknown as [string, string, string];
      assert.ok(!seen.has(key), `attribute ${key} repeated on <${name}>`);
      assert.ok(!ENTITY.test(value), `unescaped & in attribute ${key} of <${name}>`);
      seen.add(key);
      rest = rest.slice(all.length);
    }
    const end = /^\s*(\/?)>/.exec(rest);
    assert.ok(end, `malformed start tag <${name}`);
    rest = rest.slice(end[0].length);
    if (end[1] === '/') {
      if (open.length === 0) closedRoot = true;
    } else open.push(name);
  }
  assert.ok(root !== undefined, 'the document has no root element');
  assert.equal(open.length, 0, `unclosed element <${open.at(-1)}>`);
  return root;
}
