import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { eventually } from '@switchboard/runtime/testing';
import { WebSocket } from 'ws';
import { encodeMulaw, pcm16le, startSimulator, synthesizeSpeech, type Simulator } from '../src/index.js';

type Message = { type: string; [key: string]: unknown };
interface Results extends Message {
  is_final: boolean;
  speech_final: boolean;
  from_finalize: boolean;
  start: number;
  duration: number;
  channel: { alternatives: { transcript: string; confidence: number; words: { word: string; punctuated_word?: string; start: number; end: number }[] }[] };
}

const BOOK = 'Hello, I would like to book a table for two.';
const CANCEL = 'Please cancel my order.';
const silenceMulaw = (ms: number): Buffer => Buffer.alloc(ms * 8, 0xff);
const speechMulaw = (text: string): Buffer => encodeMulaw(synthesizeSpeech(text, 8000));

/** A client of /deepgram/v1/listen that keeps every message. */
class Listener {
  readonly messages: Message[] = [];
  readonly socket: WebSocket;
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(sim: Simulator, query: string, apiKey = sim.credentials.deepgram.apiKey) {
    this.socket = new WebSocket(`${sim.url.replace('http', 'ws')}/deepgram/v1/listen?${query}`, { headers: { authorization: `Token ${apiKey}` } });
    this.socket.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)) as Message);
    });
    this.closed = new Promise((resolve) => this.socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
  }

  /** Sends audio in 20 ms frames, as a phone would. */
  send(audio: Buffer, frameBytes = 160): void {
    for (let at = 0; at < audio.length; at += frameBytes) this.socket.send(audio.subarray(at, at + frameBytes));
  }

  control(type: string): void {
    this.socket.send(JSON.stringify({ type }));
  }

  results(): Results[] {
    return this.messages.filter((m): m is Results => m.type === 'Results');
  }

  finals(): Results[] {
    return this.results().filter((r) => r.is_final);
  }

  /** Waits until `count` messages matching `test` arrived. */
  waitFor(test: (m: Message) => boolean, count = 1): Promise<Message[]> {
    return eventually(
      () => {
        const hits = this.messages.filter(test);
        return hits.length >= count && hits;
      },
      { intervalMs: 10, message: () => `${count} matching messages (${this.messages.filter(test).length} among ${JSON.stringify(this.messages.map((m) => m.type))})` },
    );
  }
}

const transcriptOf = (r: Results): string => r.channel.alternatives[0]!.transcript;
const MULAW_QUERY = 'encoding=mulaw&sample_rate=8000&channels=1&punctuate=true&endpointing=300&interim_results=true&model=nova-3';

describe('Deepgram API (simulated)', { timeout: 10_000 }, () => {
  let sim: Simulator;
  let open: Listener[] = [];
  const listen = async (query: string, apiKey?: string): Promise<Listener> => {
    const listener = new Listener(sim, query, apiKey);
    open.push(listener);
    await listener.opened();
    return listener;
  };

  before(async () => {
    sim = await startSimulator({ statusCallbacks: false });
  });
  beforeEach(() => {
    sim.reset();
    sim.deepgram.registerPhrase(BOOK);
    sim.deepgram.registerPhrase(CANCEL);
  });
  after(async () => {
    for (const l of open) l.socket.terminate();
    await sim.close();
  });

  it('answers GET /v1/projects with the Token key, 401 in Deepgram shape without it', async () => {
    const ok = await fetch(`${sim.baseUrls.deepgram}/v1/projects`, { headers: { authorization: `Token ${sim.credentials.deepgram.apiKey}` } });
    assert.equal(ok.status, 200);
    const { projects } = (await ok.json()) as { projects: { project_id: string; name: string }[] };
    assert.equal(projects.length, 1);
    const refused = await fetch(`${sim.baseUrls.deepgram}/v1/projects`, { headers: { authorization: 'Token nope' } });
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { err_code: string }).err_code, 'INVALID_AUTH');
    assert.equal(refused.headers.get('dg-error'), 'Invalid credentials.');
  });

  it('refuses an upgrade with a wrong key (401), without a raw encoding (400), and on an injected fault', async () => {
    const status = (query: string, key?: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`${sim.url.replace('http', 'ws')}/deepgram/v1/listen?${query}`, { headers: { authorization: `Token ${key ?? sim.credentials.deepgram.apiKey}` } });
        ws.on('unexpected-response', (_req, res) => {
          resolve(res.statusCode ?? 0);
          ws.terminate();
        });
        ws.on('open', () => {
          resolve(101);
          ws.close();
        });
        ws.on('error', () => {});
      });
    assert.equal(await status(MULAW_QUERY, 'wrong'), 401);
    assert.equal(await status('sample_rate=8000'), 400);
    assert.equal(await status('encoding=opus&sample_rate=48000'), 400);
    assert.equal(await status('encoding=mulaw&sample_rate=8000&channels=2'), 400);
    sim.faults.add({ provider: 'deepgram', status: 503, times: 1 });
    assert.equal(await status(MULAW_QUERY), 503);
    assert.equal(await status(MULAW_QUERY), 101);
    assert.deepEqual(
      sim.requests('deepgram').filter((r) => r.path === '/deepgram/v1/listen').map((r) => r.status),
      [401, 400, 400, 400, 503, 101],
    );
  });

  it('transcribes each utterance as the registered phrase its audio matches, final at the pause', async () => {
    const l = await listen(MULAW_QUERY);
    l.send(Buffer.concat([silenceMulaw(200), speechMulaw(BOOK), silenceMulaw(400), speechMulaw(CANCEL), silenceMulaw(400)]));
    const finals = (await l.waitFor((m) => m.type === 'Results' && (m as Results).is_final, 2)) as Results[];
    assert.deepEqual(finals.map(transcriptOf), [BOOK, CANCEL]);
    assert.ok(finals.every((r) => r.speech_final && !r.from_finalize), JSON.stringify(finals.map((r) => [r.speech_final, r.from_finalize])));
    assert.ok(Math.abs(finals[0]!.start - 0.2) < 0.03, `starts at 0.2 s, got ${finals[0]!.start}`);
    assert.ok(Math.abs(finals[0]!.duration - (BOOK.length * 60) / 1000) < 0.1, `lasts about as long as the speech, got ${finals[0]!.duration}`);
    assert.equal(finals[0]!.channel.alternatives[0]!.words[0]!.punctuated_word, 'Hello,');
    assert.equal(finals[0]!.channel.alternatives[0]!.words[0]!.word, 'hello');
    assert.ok(finals[0]!.channel.alternatives[0]!.confidence > 0.9, 'a confident match');
    // A 2.6 s phrase gets interim results with the words heard so far.
    const interims = l.results().filter((r) => !r.is_final);
    assert.ok(interims.length >= 2, `interim results: ${interims.length}`);
    assert.ok(interims.some((r) => transcriptOf(r).startsWith('Hello, I would')), JSON.stringify(interims.map(transcriptOf)));
    assert.ok(interims.every((r) => BOOK.startsWith(transcriptOf(r)) || CANCEL.startsWith(transcriptOf(r))), 'interim transcripts are openings of what was said');
  });

  it('transcribes speech it has no phrase for as an empty transcript', async () => {
    const l = await listen(MULAW_QUERY);
    l.send(Buffer.concat([speechMulaw('Something nobody registered at all'), silenceMulaw(400)]));
    const [final] = (await l.waitFor((m) => m.type === 'Results' && (m as Results).is_final)) as Results[];
    assert.equal(transcriptOf(final!), '');
    assert.equal(final!.speech_final, true);
  });

  it('answers Finalize with the utterance in progress, from_finalize: true; and nothing when no audio came since', async () => {
    const l = await listen(MULAW_QUERY);
    l.send(Buffer.concat([speechMulaw(CANCEL), silenceMulaw(100)]));
    l.control('Finalize');
    const [final] = (await l.waitFor((m) => m.type === 'Results' && (m as Results).is_final)) as Results[];
    assert.deepEqual([transcriptOf(final!), final!.from_finalize, final!.speech_final], [CANCEL, true, false]);
    l.control('Finalize');
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(l.finals().length, 1, 'no audio since the last final: no answer, as Deepgram');
    l.send(silenceMulaw(100));
    l.control('Finalize');
    const [, empty] = (await l.waitFor((m) => m.type === 'Results' && (m as Results).is_final, 2)) as Results[];
    assert.deepEqual([transcriptOf(empty!), empty!.from_finalize], ['', true]);
  });

  it('hears linear16 at 16 kHz, and without punctuate gives bare lower-case words', async () => {
    const l = await listen('encoding=linear16&sample_rate=16000&endpointing=300');
    const audio = Buffer.concat([pcm16le(synthesizeSpeech(CANCEL, 16000)), Buffer.alloc(16000)]);
    l.send(audio, 640);
    const [final] = (await l.waitFor((m) => m.type === 'Results' && (m as Results).is_final)) as Results[];
    assert.equal(transcriptOf(final!), 'please cancel my order');
    assert.equal(l.results().filter((r) => !r.is_final).length, 0, 'no interim results unless asked');
  });

  it('sends SpeechStarted and UtteranceEnd when asked, and closes on CloseStream after the final results and Metadata', async () => {
    const l = await listen(`${MULAW_QUERY}&vad_events=true&utterance_end_ms=1000`);
    l.send(Buffer.concat([silenceMulaw(100), speechMulaw(CANCEL), silenceMulaw(1200), speechMulaw(BOOK)]));
    await l.waitFor((m) => m.type === 'UtteranceEnd');
    l.control('CloseStream');
    const { code } = await l.closed;
    assert.equal(code, 1000);
    const types = l.messages.map((m) => m.type);
    assert.equal(types[0], 'SpeechStarted');
    assert.equal(types.at(-1), 'Metadata');
    assert.deepEqual(l.finals().map(transcriptOf), [CANCEL, BOOK]);
    assert.equal(l.finals()[1]!.speech_final, false, 'cut by CloseStream, not by a pause');
    const metadata = l.messages.at(-1)!;
    assert.ok(Math.abs((metadata['duration'] as number) - (0.1 + (CANCEL.length * 60) / 1000 + 1.2 + (BOOK.length * 60) / 1000)) < 0.05, `metadata duration ${String(metadata['duration'])}`);
    const [session] = sim.deepgram.sessions();
    for (let i = 0; i < 50 && session?.closeCode === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(session?.controls, ['CloseStream']);
    assert.equal(session?.closeCode, 1000);
    assert.equal(session?.options.encoding, 'mulaw');
  });

  it('closes with 1008 on a text frame that is no control message, and keeps KeepAlive quiet', async () => {
    const l = await listen(MULAW_QUERY);
    l.control('KeepAlive');
    l.socket.send('not json');
    const { code, reason } = await l.closed;
    assert.equal(code, 1008);
    assert.match(reason, /DATA-0000/);
    assert.equal(l.messages.length, 0);
  });

  it('takes the key as a WebSocket subprotocol too, as browsers send it', async () => {
    const ws = new WebSocket(`${sim.url.replace('http', 'ws')}/deepgram/v1/listen?${MULAW_QUERY}`, ['token', sim.credentials.deepgram.apiKey]);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.close();
  });
});
