import assert from 'node:assert/strict';
import type { Driver, WebhookRequest } from '../driver.js';
import { ErrorCodes } from '../errors.js';
import { checkDriverCapabilities } from '../manifest.js';
import type { AudioFormat, CallStep, Telephony } from '../voice.js';
import { assertWav } from './wav-checks.js';
import { assertAck, expectCode } from './checks.js';
import { AUDIO_FORMATS, assertCallStatusEvent, assertSynthesizedAudio, assertWellFormedXml } from './voice-checks.js';

/** The voice cases, in the order they run; part of `CONFORMANCE_CASES`. */
export const VOICE_CONFORMANCE_CASES = [
  'voice capabilities match the manifest',
  'synthesize returns audio of the requested format and a plausible length',
  'voices lists voices with an id and a name',
  'a synthesis fault is a PROVIDER_ERROR, retryable for 5xx and 429 only',
  'a recognition stream takes audio and finalize returns its transcript',
  'a recognition stream is refused with wrong credentials',
  'a fault opening a recognition stream is a PROVIDER_ERROR, retryable for 5xx and 429 only',
  'render produces a document of the declared content type',
  'placeCall returns a callSid and a status',
  'updateCall accepts steps for a placed call',
  'fetchCall answers for a call it placed',
  'parseCallWebhook reads a call status event',
  'parseCallWebhook rejects a body without a call id',
  'parseRecordingWebhook reads a recording event and fetch returns its WAV audio',
  'parseRecordingWebhook rejects a body without a recording id',
] as const;

/** One voice case name. */
export type VoiceConformanceCase = (typeof VOICE_CONFORMANCE_CASES)[number];

/** The capability each voice case exercises; `voice` means any of tts, stt and telephony. */
export const VOICE_CAPABILITY_OF: Readonly<Record<VoiceConformanceCase, 'tts' | 'stt' | 'telephony' | 'fetchCall' | 'voice' | 'recording'>> = {
  'voice capabilities match the manifest': 'voice',
  'synthesize returns audio of the requested format and a plausible length': 'tts',
  'voices lists voices with an id and a name': 'tts',
  'a synthesis fault is a PROVIDER_ERROR, retryable for 5xx and 429 only': 'tts',
  'a recognition stream takes audio and finalize returns its transcript': 'stt',
  'a recognition stream is refused with wrong credentials': 'stt',
  'a fault opening a recognition stream is a PROVIDER_ERROR, retryable for 5xx and 429 only': 'stt',
  'render produces a document of the declared content type': 'telephony',
  'placeCall returns a callSid and a status': 'telephony',
  'updateCall accepts steps for a placed call': 'telephony',
  'fetchCall answers for a call it placed': 'fetchCall',
  'parseCallWebhook reads a call status event': 'telephony',
  'parseCallWebhook rejects a body without a call id': 'telephony',
  'parseRecordingWebhook reads a recording event and fetch returns its WAV audio': 'recording',
  'parseRecordingWebhook rejects a body without a recording id': 'recording',
};

type Fixture<T> = () => Promise<T> | T;

/** Fixtures of the text-to-speech cases; every field has a default. */
export interface SpeechSynthesisFixtures {
  /** What to speak; a short sentence by default. */
  text?: string;
  /** Voice to ask for; the driver's default when absent. */
  voice?: string;
  /** Formats to ask for; `ulaw_8000` and `pcm_16000` by default. */
  formats?: readonly AudioFormat[];
}

/** One utterance of audio to feed a recognition stream. */
export interface RecognitionUtterance {
  encoding: 'mulaw' | 'linear16';
  sampleRate: 8000 | 16000;
  language?: string;
  /** The whole utterance, trailing silence included; the suite writes it in 20 ms chunks. */
  audio: Buffer;
  /** What finalize must resolve with: an exact string or a pattern. Any string when absent. */
  expect?: string | RegExp;
}

/** Fixtures of the speech-to-text cases. */
export interface SpeechRecognitionFixtures {
  /** Audio the provider (or its simulator) can transcribe; required for the recognition case. */
  utterance: Fixture<RecognitionUtterance>;
}

/** A call the provider accepts. */
export type PlaceCallRequest = Parameters<Telephony['placeCall']>[0];

/** Fixtures of the telephony cases. */
export interface TelephonyFixtures {
  /** A call the provider accepts (numbers it owns, reachable webhook URLs). */
  call: Fixture<PlaceCallRequest>;
  /** A verified voice webhook (incoming call or status callback) that parses. */
  callWebhook?: Fixture<WebhookRequest>;
  /** A correctly signed voice webhook whose body names no call. */
  malformedCallWebhook?: Fixture<WebhookRequest>;
  /** Steps to render; one of each kind by default. */
  steps?: readonly CallStep[];
  /** A call id in the provider's format that it never issued: `fetchCall` must answer undefined for it. */
  unknownCallSid?: string;
  /** Further checks on what `callWebhook()` parses into. */
  expectCallStatus?: (event: NonNullable<ReturnType<Telephony['parseCallWebhook']>>) => void | Promise<void>;
  /** A verified recording status callback for a completed recording the provider holds (telephony.recording). */
  recordingWebhook?: Fixture<WebhookRequest>;
  /** A correctly signed recording status callback whose body names no recording. */
  malformedRecordingWebhook?: Fixture<WebhookRequest>;
}

/** The voice options of `describeDriverConformance`. */
export interface VoiceFixtures {
  tts?: SpeechSynthesisFixtures;
  stt?: SpeechRecognitionFixtures;
  telephony?: TelephonyFixtures;
}

/** What the voice cases borrow from the suite that declares them. */
export interface VoiceSuite {
  readonly fixtures: VoiceFixtures;
  test(name: VoiceConformanceCase, body: (d: Driver) => Promise<void> | void): void;
  need<T>(value: T | undefined, option: string, name: VoiceConformanceCase): T;
  /** A driver made from `wrongCredentials()`, closed after `use`. */
  withWrongCredentials(name: VoiceConformanceCase, use: (d: Driver) => Promise<void>): Promise<void>;
  injectFault?: (status: number) => unknown;
  clearFaults?: () => unknown;
}

const DEFAULT_TEXT = 'Hello from the Switchboard conformance suite.';
const DEFAULT_FORMATS: readonly AudioFormat[] = ['ulaw_8000', 'pcm_16000'];

/** One step of each kind; the texts, URLs and numbers must each appear in the rendered document. */
export const DEFAULT_CALL_STEPS: readonly CallStep[] = [
  { kind: 'say', text: 'Connecting you now', language: 'en-US' },
  { kind: 'play', url: 'https://media.switchboard.test/hold.wav' },
  { kind: 'pause', seconds: 1 },
  { kind: 'connect', mode: 'stream', url: 'wss://gateway.switchboard.test/webhooks/agent-1/voice-ws', parameters: { agentId: 'agent-1' } },
  { kind: 'dial', number: '+15005550006', callerId: '+15005550007' },
  { kind: 'hangup' },
];

const RELAY_STEP: CallStep = {
  kind: 'connect',
  mode: 'relay',
  url: 'wss://gateway.switchboard.test/webhooks/agent-1/voice-ws',
  greeting: 'Hi, this is the assistant',
  language: 'en-US',
  parameters: { agentId: 'agent-1' },
};

/** Strings of a step that a rendered document must carry. */
function visibleParts(step: CallStep): string[] {
  switch (step.kind) {
    case 'say':
      return [step.text];
    case 'play':
      return [step.url];
    case 'connect':
      return [step.url, ...Object.values(step.parameters ?? {}), ...(step.greeting ? [step.greeting] : [])];
    case 'dial':
      return [step.number, ...(step.callerId ? [step.callerId] : [])];
    default:
      return [];
  }
}

/** Declares the voice cases inside the suite's describe block. */
export function declareVoiceCases(suite: VoiceSuite): void {
  const { fixtures, test, need } = suite;

  const faultCases = async (name: VoiceConformanceCase, action: () => Promise<unknown>): Promise<void> => {
    const inject = need(suite.injectFault, 'injectFault', name);
    for (const [status, retryable] of [[503, true], [429, true], [400, false]] as const) {
      await inject(status);
      try {
        const err = await expectCode(action, ErrorCodes.PROVIDER_ERROR);
        assert.equal(err.retryable, retryable, `an HTTP ${status} from the provider must give retryable: ${retryable}`);
      } finally {
        await suite.clearFaults?.();
      }
    }
  };

  test('voice capabilities match the manifest', (d) => {
    // telephony comes with the voice channel; tts and stt with the manifest's speech list, not with voice.
    checkDriverCapabilities(d);
  });

  test('synthesize returns audio of the requested format and a plausible length', async (d) => {
    const text = fixtures.tts?.text ?? DEFAULT_TEXT;
    for (const format of fixtures.tts?.formats ?? DEFAULT_FORMATS) {
      assert.ok(format in AUDIO_FORMATS, `tts.formats has unknown format ${format}`);
      const result = await d.tts!.synthesize({ text, format, ...(fixtures.tts?.voice ? { voice: fixtures.tts.voice } : {}) });
      assertSynthesizedAudio(result, format, text);
    }
  });

  test('voices lists voices with an id and a name', async (d) => {
    const voices = await d.tts!.voices();
    assert.ok(Array.isArray(voices) && voices.length > 0, 'voices must list at least one voice');
    for (const voice of voices) {
      assert.ok(typeof voice.id === 'string' && voice.id.length > 0, 'voice.id must be a non-empty string');
      assert.ok(typeof voice.name === 'string' && voice.name.length > 0, 'voice.name must be a non-empty string');
      if (voice.language !== undefined) assert.equal(typeof voice.language, 'string', 'voice.language must be a string when present');
    }
  });

  test('a synthesis fault is a PROVIDER_ERROR, retryable for 5xx and 429 only', (d) =>
    faultCases('a synthesis fault is a PROVIDER_ERROR, retryable for 5xx and 429 only', () =>
      d.tts!.synthesize({ text: fixtures.tts?.text ?? DEFAULT_TEXT, format: fixtures.tts?.formats?.[0] ?? 'ulaw_8000' }),
    ),
  );

  test('a recognition stream takes audio and finalize returns its transcript', async (d) => {
    const fixture = need(fixtures.stt?.utterance, 'stt.utterance', 'a recognition stream takes audio and finalize returns its transcript');
    const utterance = await fixture();
    const stream = await d.stt!.open({ encoding: utterance.encoding, sampleRate: utterance.sampleRate, ...(utterance.language ? { language: utterance.language } : {}) });
    try {
      const chunk = (utterance.sampleRate / 50) * (utterance.encoding === 'mulaw' ? 1 : 2);
      for (let at = 0; at < utterance.audio.length; at += chunk) stream.write(utterance.audio.subarray(at, at + chunk));
      const transcript = await stream.finalize();
      assert.equal(typeof transcript, 'string', 'finalize must resolve with a string');
      if (typeof utterance.expect === 'string') assert.equal(transcript, utterance.expect);
      else if (utterance.expect) assert.match(transcript, utterance.expect);
    } finally {
      await stream.close();
    }
  });

  test('a recognition stream is refused with wrong credentials', () =>
    suite.withWrongCredentials('a recognition stream is refused with wrong credentials', async (wrong) => {
      assert.ok(wrong.stt, 'the driver made from wrongCredentials() has no stt capability');
      const err = await expectCode(async () => {
        const stream = await wrong.stt!.open({ encoding: 'mulaw', sampleRate: 8000 });
        await stream.close();
      }, ErrorCodes.PROVIDER_ERROR);
      assert.equal(err.retryable, false, 'refused credentials are not retryable');
    }),
  );

  test('a fault opening a recognition stream is a PROVIDER_ERROR, retryable for 5xx and 429 only', (d) =>
    faultCases('a fault opening a recognition stream is a PROVIDER_ERROR, retryable for 5xx and 429 only', async () => {
      const stream = await d.stt!.open({ encoding: 'mulaw', sampleRate: 8000 });
      await stream.close();
    }),
  );

  test('render produces a document of the declared content type', (d) => {
    const steps = fixtures.telephony?.steps ?? DEFAULT_CALL_STEPS;
    for (const batch of [steps, [RELAY_STEP], ...steps.map((s) => [s])]) {
      const document = d.telephony!.render(batch);
      assertAck(document);
      assert.ok(document.body.length > 0, 'render must produce a document');
      if (/xml/i.test(document.contentType)) assertWellFormedXml(document.body);
      const text = unescapeXml(document.body);
      for (const part of batch.flatMap(visibleParts)) {
        assert.ok(text.includes(part), `the document for ${batch.map((s) => s.kind).join(', ')} must carry "${part}"`);
      }
    }
  });

  test('placeCall returns a callSid and a status', async (d) => {
    const call = await need(fixtures.telephony?.call, 'telephony.call', 'placeCall returns a callSid and a status')();
    const placed = await d.telephony!.placeCall(call);
    assert.ok(typeof placed.callSid === 'string' && placed.callSid.length > 0, 'callSid must be a non-empty string');
    assert.ok(typeof placed.status === 'string' && placed.status.length > 0, 'status must be a non-empty string');
  });

  test('updateCall accepts steps for a placed call', async (d) => {
    const call = await need(fixtures.telephony?.call, 'telephony.call', 'updateCall accepts steps for a placed call')();
    const { callSid } = await d.telephony!.placeCall(call);
    await d.telephony!.updateCall(callSid, [{ kind: 'say', text: 'One moment' }, { kind: 'pause', seconds: 1 }]);
    await d.telephony!.updateCall(callSid, [{ kind: 'hangup' }]);
  });

  test('fetchCall answers for a call it placed', async (d) => {
    const call = await need(fixtures.telephony?.call, 'telephony.call', 'fetchCall answers for a call it placed')();
    const { callSid } = await d.telephony!.placeCall(call);
    const answer = await d.telephony!.fetchCall!(callSid);
    assert.ok(answer !== undefined, `fetchCall must answer for the call just placed (${callSid})`);
    assertCallStatusEvent(answer);
    assert.equal(answer.callSid, callSid, 'fetchCall must answer about the call asked for');
    await d.telephony!.updateCall(callSid, [{ kind: 'hangup' }]);
    const unknownSid = need(fixtures.telephony?.unknownCallSid, 'telephony.unknownCallSid', 'fetchCall answers for a call it placed');
    assert.equal(await d.telephony!.fetchCall!(unknownSid), undefined, 'fetchCall must answer undefined for a call the provider never placed');
  });

  test('parseCallWebhook reads a call status event', async (d) => {
    const request = await need(fixtures.telephony?.callWebhook, 'telephony.callWebhook', 'parseCallWebhook reads a call status event')();
    await d.webhooks?.verify(request);
    const event = d.telephony!.parseCallWebhook(request);
    assert.ok(event !== undefined, 'the callWebhook fixture must parse into a call status event');
    assertCallStatusEvent(event);
    await fixtures.telephony?.expectCallStatus?.(event);
  });

  test('parseCallWebhook rejects a body without a call id', async (d) => {
    const request = await need(fixtures.telephony?.malformedCallWebhook, 'telephony.malformedCallWebhook', 'parseCallWebhook rejects a body without a call id')();
    await d.webhooks?.verify(request);
    await expectCode(() => d.telephony!.parseCallWebhook(request), ErrorCodes.MALFORMED_PAYLOAD);
  });

  declareRecordingCases(suite);
}

/** The recording cases: a callback read into an event whose audio downloads as WAV, and a malformed one refused. */
function declareRecordingCases({ fixtures, test, need }: VoiceSuite): void {
  const reads = 'parseRecordingWebhook reads a recording event and fetch returns its WAV audio';
  test(reads, async (d) => {
    const request = await need(fixtures.telephony?.recordingWebhook, 'telephony.recordingWebhook', reads)();
    await d.webhooks?.verify(request);
    const recording = d.telephony!.recording!;
    const event = recording.parseRecordingWebhook(request);
    assert.equal(event.type, 'recording');
    assert.ok(typeof event.callSid === 'string' && event.callSid.length > 0, 'callSid must be a non-empty string');
    assert.ok(typeof event.recordingId === 'string' && event.recordingId.length > 0, 'recordingId must be a non-empty string');
    assert.equal(event.status, 'completed', 'the fixture is a completed recording');
    assert.ok(event.durationSeconds === null || (Number.isFinite(event.durationSeconds) && event.durationSeconds >= 0), 'durationSeconds must be null or >= 0');
    const audio = await recording.fetch(event);
    assert.match(audio.contentType, /^audio\/(x-)?wav/, 'a recording is served as WAV');
    const wav = assertWav(audio.audio);
    if (event.durationSeconds !== null) assert.ok(Math.abs(wav.seconds - event.durationSeconds) <= 1.5, `the audio lasts ${wav.seconds} s, the event says ${event.durationSeconds} s`);
  });

  const rejects = 'parseRecordingWebhook rejects a body without a recording id';
  test(rejects, async (d) => {
    const request = await need(fixtures.telephony?.malformedRecordingWebhook, 'telephony.malformedRecordingWebhook', rejects)();
    await d.webhooks?.verify(request);
    await expectCode(() => d.telephony!.recording!.parseRecordingWebhook(request), ErrorCodes.MALFORMED_PAYLOAD);
  });
}

/** The document with XML's predefined entities expanded (a no-op for JSON, which has none). */
function unescapeXml(text: string): string {
  const named: Record<string, string> = { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' };
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_, name: string) => named[name]!);
}
