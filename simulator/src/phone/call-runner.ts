import { randomUUID } from 'node:crypto';
import { speechDurationMs } from '../audio.js';
import { registerSpokenPhrase } from '../deepgram/deepgram-state.js';
import { twilioSid } from '../ids.js';
import { callRequestParams, sendCallWebhook } from '../twilio/calls-webhooks.js';
import { probeAudio } from './audio-probe.js';
import { runCallerScript } from './caller-script.js';
import { MediaStreamLeg } from './media-stream-leg.js';
import { rewriteUrl, type PhoneContext } from './phone-context.js';
import type { LivePhoneCall } from './phone-call.js';
import type { CallEnd, ConnectionRecord, HeardItem } from './phone-types.js';
import { RelayLeg } from './relay-leg.js';
import { openSignedWebSocket } from './signed-websocket.js';
import { speechFrames } from './speech-frames.js';
import { parseTwiml, TwimlError, type TwimlVerb } from './twiml.js';
import { sidOf, type LegContext, type VoiceLeg } from './voice-leg.js';

/** TwiML to run: a document, or a URL to fetch it from (with extra request parameters). */
export type TwimlSource = { twiml: string; baseUrl?: string } | { url: string; method: string; params?: Record<string, string> };

/** How long a `<Dial>`ed number rings before its party answers (or not). */
const DIAL_RING_MS = 300;
/** `<Play>` longer than this is heard for this long. */
const MAX_PLAY_MS = 60_000;

class Cancelled extends Error {}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Cancelled());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Cancelled());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** What a verb leaves to do next: nothing (go on), the end of the call, or another document. */
type Outcome = undefined | 'end' | TwimlSource;

/**
 * Executes TwiML for a call the way Twilio does: verb by verb, fetching documents from the URLs
 * it is given, following `<Redirect>` and `action` URLs, connecting `<Connect>` sockets. A
 * redirect through the REST API abandons the document being run and starts the new one.
 */
export class TwimlRunner {
  readonly #call: LivePhoneCall;
  readonly #ctx: PhoneContext;
  #generation = 0;
  #abort = new AbortController();
  #leg: VoiceLeg | undefined;

  constructor(call: LivePhoneCall, ctx: PhoneContext) {
    this.#call = call;
    this.#ctx = ctx;
  }

  start(source: TwimlSource): void {
    const generation = ++this.#generation;
    void this.#execute(source, generation, this.#abort.signal);
  }

  redirect(source: TwimlSource): void {
    this.#interrupt('redirect');
    this.start(source);
  }

  /** The call ended: stop whatever runs, closing the socket for whoever ended it. */
  stop(by: CallEnd): void {
    this.#interrupt(by === 'api' || by === 'agent' ? 'agent' : by === 'error' ? 'error' : 'caller');
  }

  #interrupt(closeBy: 'caller' | 'agent' | 'redirect' | 'error'): void {
    this.#generation++;
    this.#abort.abort();
    this.#abort = new AbortController();
    this.#leg?.close(closeBy);
    this.#leg = undefined;
  }

  #current(generation: number): boolean {
    return generation === this.#generation && !this.#call.ended;
  }

  async #execute(first: TwimlSource, generation: number, signal: AbortSignal): Promise<void> {
    try {
      let next: TwimlSource | undefined = first;
      let streamed = false;
      while (next && this.#current(generation)) {
        const document = await this.#load(next);
        if (!this.#current(generation)) return;
        if (!document) {
          this.#call.end(this.#call.answered ? 'completed' : 'failed', 'error');
          return;
        }
        next = undefined;
        streamed = document.verbs.some((v) => v.verb === 'Connect');
        for (const verb of document.verbs) {
          const outcome = await this.#run(verb, document.baseUrl, generation, signal);
          if (!this.#current(generation) || outcome === 'end') return;
          if (outcome) {
            next = outcome;
            break;
          }
        }
      }
      // A Telnyx call outlives its media stream: it goes on, silent, until a hangup command or the caller ends it.
      if (streamed && this.#call.sim.telnyx) return;
      if (this.#current(generation)) this.#call.end('completed', 'twiml-end');
    } catch (err) {
      if (err instanceof Cancelled || !this.#current(generation)) return;
      this.#call.error(`twiml: ${(err as Error).message}`);
      this.#call.end(this.#call.answered ? 'completed' : 'failed', 'error');
    }
  }

  /** Fetches (when given a URL) and parses a document; undefined after recording why it failed. */
  async #load(source: TwimlSource): Promise<{ verbs: TwimlVerb[]; baseUrl: string | undefined } | undefined> {
    let xml: string;
    let baseUrl: string | undefined;
    if ('twiml' in source) {
      xml = source.twiml;
      baseUrl = source.baseUrl;
    } else {
      const { state, settings } = this.#ctx;
      const params = { ...callRequestParams(this.#call.sim, this.#call.answered ? 'in-progress' : this.#call.sim.status), ...source.params };
      if (this.#call.sim.params['MachineDetection']) params['AnsweredBy'] = 'human';
      const answer = await sendCallWebhook(state.credentials.twilio.authToken, source.url, source.method, params, {}, rewriteUrl(settings, source.url));
      this.#call.recording.twiml.push({ url: source.url, method: source.method, status: answer.status, body: answer.body, at: new Date() });
      if (answer.status < 200 || answer.status >= 300) {
        this.#call.error(`twiml: ${source.method} ${source.url} answered HTTP ${answer.status} (Twilio error 11200)`);
        return undefined;
      }
      xml = answer.body;
      baseUrl = source.url;
    }
    try {
      return { verbs: parseTwiml(xml), baseUrl };
    } catch (err) {
      if (!(err instanceof TwimlError)) throw err;
      this.#call.error(`twiml: ${err.message} (Twilio error 12100)`);
      return undefined;
    }
  }

  #heard(item: HeardItem): void {
    this.#call.recording.heard.push(item);
  }

  async #run(verb: TwimlVerb, baseUrl: string | undefined, generation: number, signal: AbortSignal): Promise<Outcome> {
    const at = new Date();
    const resolve = (url: string) => (baseUrl ? new URL(url, baseUrl).toString() : url);
    switch (verb.verb) {
      case 'Say': {
        const item: HeardItem = { kind: 'say', text: verb.text, at };
        if (verb.voice) item.voice = verb.voice;
        if (verb.language) item.language = verb.language;
        this.#heard(item);
        await sleep(speechDurationMs(verb.text) * verb.loop, signal);
        return undefined;
      }
      case 'Play': {
        const url = resolve(verb.url);
        const probe = await probeAudio(rewriteUrl(this.#ctx.settings, url));
        this.#heard({ kind: 'play', url, via: 'twiml', ...probe, at });
        if (!probe.audio) this.#call.error(`twiml: <Play> ${url}: ${probe.error ?? 'not audio'}`);
        await sleep(Math.min(probe.durationMs, MAX_PLAY_MS) * verb.loop, signal);
        return undefined;
      }
      case 'Pause':
        this.#heard({ kind: 'pause', seconds: verb.seconds, at });
        await sleep(verb.seconds * 1000, signal);
        return undefined;
      case 'Hangup':
        this.#heard({ kind: 'hangup', at });
        this.#call.end('completed', 'agent');
        return 'end';
      case 'Reject':
        this.#heard({ kind: 'reject', reason: verb.reason, at });
        this.#call.end(verb.reason === 'busy' ? 'busy' : 'no-answer', 'agent');
        return 'end';
      case 'Redirect':
        this.#heard({ kind: 'redirect', url: resolve(verb.url), at });
        return { url: resolve(verb.url), method: verb.method };
      case 'Dial':
        return this.#dial(verb, resolve, signal);
      case 'Connect':
        return this.#connect(verb, resolve, generation);
      case 'Unsupported':
        this.#heard({ kind: 'unsupported', verb: verb.name, at });
        return undefined;
    }
  }

  async #dial(verb: Extract<TwimlVerb, { verb: 'Dial' }>, resolve: (url: string) => string, signal: AbortSignal): Promise<Outcome> {
    const outcome = this.#call.script.dialOutcome ?? 'completed';
    const talkMs = outcome === 'completed' ? (this.#call.script.dialTalkMs ?? 1000) : 0;
    const item: HeardItem = { kind: 'dial', numbers: verb.numbers, outcome, talkMs, at: new Date() };
    if (verb.callerId) item.callerId = verb.callerId;
    this.#heard(item);
    await sleep(DIAL_RING_MS + talkMs, signal);
    if (!verb.action) return undefined;
    return {
      url: resolve(verb.action),
      method: verb.method,
      params: { DialCallStatus: outcome, DialCallSid: twilioSid('CA'), DialCallDuration: String(Math.round(talkMs / 1000)) },
    };
  }

  async #connect(verb: Extract<TwimlVerb, { verb: 'Connect' }>, resolve: (url: string) => string, generation: number): Promise<Outcome> {
    const call = this.#call;
    const { state, settings, clock } = this.#ctx;
    const { mode, url, parameters, attributes } = verb;
    call.recording.mode ??= mode;
    if (call.expectMode && call.expectMode !== mode) call.error(`connect: expected ${call.expectMode} mode, the TwiML connected ${mode}`);
    const telnyx = call.sim.telnyx !== undefined;
    if (mode === 'stream' && url.includes('?') && !telnyx) call.error('connect: <Stream url> has a query string; Twilio does not support one there (pass <Parameter>s)');
    this.#heard({ kind: 'connect', mode, url, parameters, attributes, at: new Date() });
    const connectedUrl = rewriteUrl(settings, url);
    const connection: ConnectionRecord = {
      mode,
      url,
      connectedUrl,
      signature: 'valid',
      upgradeStatus: 0,
      parameters,
      sessionId: telnyx ? randomUUID() : sidOf(mode === 'stream' ? 'MZ' : 'VX'),
      openedAt: new Date(),
    };
    call.recording.connections.push(connection);
    // Synthesise the caller's lines before the stream starts, so no frame waits for it.
    if (mode === 'stream') for (const text of call.steps.upcomingUtterances()) speechFrames(text);
    const started = Date.now();
    // Telnyx signs no WebSocket upgrade: the stream URL it was given is all it opens.
    const socket = await openSignedWebSocket(state.credentials.twilio.authToken, url, connectedUrl, telnyx ? { omitSignature: true } : call.script.upgrade);
    connection.signature = socket.signature;
    connection.upgradeStatus = socket.status;
    if (!socket.ws) {
      connection.closedAt = new Date();
      connection.closedBy = 'error';
      call.error(`connect: ${mode} WebSocket ${url}: ${socket.error ?? 'failed'} (Twilio error ${mode === 'stream' ? 31920 : 64102})`);
      return this.#afterConnect(verb, resolve, connection, started, 'failed');
    }
    if (!this.#current(generation)) {
      socket.ws.terminate();
      return 'end';
    }
    const legContext: LegContext = {
      call: call.sim,
      recording: call.recording,
      connection,
      conversation: call.conversation,
      clock,
      lateFrameMs: settings.lateFrameMs,
      play: (source) => void this.#relayPlay(source),
      error: (message) => call.error(message),
    };
    const leg: VoiceLeg = mode === 'stream' ? new MediaStreamLeg(socket.ws, legContext) : new RelayLeg(socket.ws, legContext, attributes['welcomeGreeting']);
    this.#leg = leg;
    leg.start();
    const finished = await Promise.race([
      runCallerScript({
        leg,
        conversation: call.conversation,
        steps: call.steps,
        script: call.script,
        beforeUtterance: (text, language) => {
          // The simulated Deepgram transcribes stream audio by the phrases it was told callers say.
          if (mode === 'stream') registerSpokenPhrase(state, text);
          settings.onUtterance?.(text, { callSid: call.callSid, mode, language });
        },
      }),
      leg.closed.then(() => 'closed' as const),
    ]);
    if (finished === 'hangup' && this.#current(generation)) {
      call.end('completed', 'caller');
      return 'end';
    }
    await leg.closed;
    if (this.#leg === leg) this.#leg = undefined;
    if (!this.#current(generation)) return 'end';
    return this.#afterConnect(verb, resolve, connection, started, 'ended');
  }

  /** After the agent ends a `<Connect>`: its action URL, else the next verb. */
  #afterConnect(verb: Extract<TwimlVerb, { verb: 'Connect' }>, resolve: (url: string) => string, connection: ConnectionRecord, started: number, status: 'ended' | 'failed'): Outcome {
    if (!verb.action) return undefined;
    const params: Record<string, string> = { SessionId: connection.sessionId, SessionStatus: status, SessionDuration: String(Math.round((Date.now() - started) / 1000)) };
    if (connection.handoffData !== undefined) params['HandoffData'] = connection.handoffData;
    return { url: resolve(verb.action), method: verb.method, params };
  }

  async #relayPlay(source: string): Promise<void> {
    const at = new Date();
    const probe = await probeAudio(rewriteUrl(this.#ctx.settings, source));
    this.#heard({ kind: 'play', url: source, via: 'relay', ...probe, at });
    if (!probe.audio) this.#call.error(`relay: play ${source}: ${probe.error ?? 'not audio'}`);
  }
}
