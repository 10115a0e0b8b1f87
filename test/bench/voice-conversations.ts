// What the voice scenarios share: an agent that answers every turn through its callback URL, callers
// that speak, pause and barge in at random points, and the figures read back from each call's ledger
// (the calls API) and from the phones' own recordings.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { TestTls } from '../../runtime/src/testing/test-tls.js';
import { random } from '../../runtime/test/audio/signals.js';
import { provisionBenchAgent } from './scenarios/bench-agent.js';

/** What callers say. Each is registered with the simulated Deepgram by the phone as it is spoken. */
export const PHRASES = {
  questions: ['what are your opening hours', 'I have a question about my order', 'can you repeat that please', 'where is the nearest shop'],
  long: 'tell me something long please',
  interruptions: ['stop please', 'wait a moment', 'sorry to interrupt'],
  goodbye: 'that is all goodbye',
} as const;

/** The agent's replies: a few fixed texts, so the simulated text-to-speech is asked for the same audio. */
const REPLIES = {
  short: { text: 'Sure, I can help with that.' },
  long: { text: 'Here is a rather long answer that goes on and on so that you have plenty of time to interrupt me while I keep talking about nothing much at all.' },
  goodbye: { text: 'Goodbye!', end: true },
} as const;

/** Every phrase a caller may say, for the warm-up call (the simulator synthesises each once). */
export const EVERY_PHRASE: readonly string[] = [...PHRASES.questions, PHRASES.long, ...PHRASES.interruptions, PHRASES.goodbye];

/**
 * The agent side: an agent whose turns the harness answers at once through its callback URL, each
 * `call.turn` verified as an agent would (Standard Webhooks). A production server takes https callback
 * URLs only: the agent serves `tls`'s server certificate, whose CA the server is given
 * (`NODE_EXTRA_CA_CERTS`). Returns the agent's token, how many turns it answered, and how to stop it.
 */
export async function startBenchAgent(base: string, orchestratorToken: string, agentId: string, tls: TestTls): Promise<{ token: string; answered: () => number; close: () => Promise<void> }> {
  const agent = await provisionBenchAgent({ url: base, orchestratorToken }, agentId, ['voice']);
  let verifier: Webhook | undefined;
  let answered = 0;
  const server = createServer({ cert: readFileSync(tls.serverCertFile), key: readFileSync(tls.serverKeyFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      let event: { type: string; data: { text?: unknown } };
      try {
        event = verifier!.verify(Buffer.concat(chunks).toString('utf8'), headers) as typeof event;
      } catch {
        res.writeHead(401).end();
        return;
      }
      const said = String(event.data.text ?? '');
      const reply = event.type !== 'call.turn' ? {} : said.includes('goodbye') ? REPLIES.goodbye : said.includes('long') ? REPLIES.long : REPLIES.short;
      if (event.type === 'call.turn') answered++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const callbackUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const set = await fetch(`${base}/api/v1/callback-url`, { method: 'PUT', headers: { authorization: `Bearer ${agent.securityToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ callbackUrl }) });
  if (set.status !== 200) throw new Error(`setting the callback URL answered ${set.status}: ${await set.text()}`);
  verifier = new Webhook(((await set.json()) as { signingSecret: string }).signingSecret);
  return { token: agent.securityToken, answered: () => answered, close: () => new Promise<void>((r) => server.close(() => r())) };
}

type Step = string | { kind: 'say'; text: string; bargeIn?: boolean; afterMs?: number } | { kind: 'pause'; ms: number } | { kind: 'listen'; ms?: number } | { kind: 'hangup' };

/**
 * A caller's part: `turns` utterances. A question, or a request for a long answer that the caller
 * interrupts (`interruptShare` of the time) at a random point 100 ms to 6 s into it, each followed by
 * a random pause of up to 1.5 s. The call then ends with a goodbye that the agent answers by hanging
 * up, or (`hangUpShare` of the calls) the caller hangs up at a random moment after asking something.
 */
export function conversation(next: () => number, turns: number, options: { interruptShare?: number; hangUpShare?: number } = {}): { steps: Step[]; hangsUp: boolean } {
  const interruptShare = options.interruptShare ?? 0.4;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const steps: Step[] = [];
  let said = 0;
  while (said < turns - 1) {
    if (next() < interruptShare && said < turns - 2) {
      steps.push(PHRASES.long, { kind: 'say', text: pick(PHRASES.interruptions), bargeIn: true, afterMs: Math.round(100 + next() * 5900) });
      said += 2;
    } else {
      steps.push(pick(PHRASES.questions));
      said += 1;
    }
    const pause = Math.round(next() * 1500);
    if (pause > 0) steps.push({ kind: 'pause', ms: pause });
  }
  const hangsUp = next() < (options.hangUpShare ?? 0);
  if (hangsUp) steps.push(next() < 0.5 ? PHRASES.long : pick(PHRASES.questions), { kind: 'listen', ms: Math.round(next() * 4000) }, { kind: 'hangup' });
  else steps.push(PHRASES.goodbye);
  return { steps, hangsUp };
}

/** Places one stream-mode call from a simulator phone to the agent; its callSid, or undefined when refused. */
export function placeCall(simUrl: string, agentId: string, i: number, script: { steps: readonly Step[]; maxDurationMs: number; stayOnLine?: boolean }): Promise<string | undefined> {
  return fetch(`${simUrl}/_sim/phone/call`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agentId, from: `+1415555${String(1000 + i).padStart(4, '0')}`, to: '+12025550100', mode: 'stream', script: { replyTimeoutMs: 15_000, ...script } }),
  }).then(async (res) => ((await res.json()) as { callSid?: string }).callSid);
}

/** A ledger entry as the calls API gives it (the fields read here). */
export interface LedgerTurn {
  readonly turn: number;
  readonly at: string;
  readonly latencyMs: number | null;
  readonly unanswered: string | null;
  readonly stamps: Readonly<Record<string, number | null>> & { readonly ttsAsked: number | null };
  readonly components: { readonly switchboardMs: number | null; readonly ttsMs: number | null };
  readonly bargeIns: readonly { readonly atMs: number; readonly stopMs: number | null }[];
}

/** A call as the calls API gives it. */
export interface CallDetail {
  readonly callSid: string;
  readonly status: string;
  readonly endedAt: string | null;
  readonly ledger: { readonly greeting: LedgerTurn | null; readonly turns: readonly LedgerTurn[] } | null;
  readonly transcript: readonly { readonly turn: number; readonly role: string }[];
}

const ENDED = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled']);

/**
 * Each call through the calls API, once its ledger is written and its status is final (or `waitMs`
 * has passed: what is read then is what is stored). A few at a time, as an operator's page would.
 */
export async function readCalls(base: string, token: string, sids: readonly string[], waitMs = 15_000): Promise<CallDetail[]> {
  const deadline = Date.now() + waitMs;
  const out: CallDetail[] = [];
  let at = 0;
  const worker = async () => {
    while (at < sids.length) {
      const sid = sids[at++]!;
      for (;;) {
        const res = await fetch(`${base}/api/v1/calls/${sid}`, { headers: { authorization: `Bearer ${token}` } });
        const call = res.status === 200 ? ((await res.json()) as CallDetail) : undefined;
        if ((call?.ledger && ENDED.has(call.status)) || Date.now() > deadline) {
          if (call) out.push(call);
          break;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return out;
}

/** A phone's recording of one call (the fields read here), from the simulator. */
export interface PhoneRecording {
  readonly callSid: string;
  readonly status: string;
  readonly endedBy?: string;
  readonly errors: readonly string[];
  readonly turns: readonly { readonly index: number; readonly timedOut: boolean; readonly caller?: { readonly text?: string; readonly bargeIn: boolean; readonly startedAt: string }; readonly agent: { readonly firstAt?: string } }[];
  readonly clears: readonly { readonly at: string; readonly duringCallerSpeech: boolean }[];
  readonly frames: { readonly sent: number };
}

/** Each call's recording as the phone kept it. */
export async function phoneRecordings(simUrl: string, sids: readonly string[]): Promise<PhoneRecording[]> {
  const out: PhoneRecording[] = [];
  for (const sid of sids) {
    const res = await fetch(`${simUrl}/_sim/phone/calls/${sid}`);
    if (res.status === 200) out.push((await res.json()) as PhoneRecording);
  }
  return out;
}

/**
 * Barge-ins as the caller lives them: from the phone starting to speak over a reply to the gateway's
 * `clear` reaching it (what the phone hears then stops), in ms; Date resolution.
 */
export function callerStopTimes(recordings: readonly PhoneRecording[], from = -Infinity, to = Infinity): number[] {
  const out: number[] = [];
  for (const r of recordings) {
    const clears = r.clears.filter((c) => c.duringCallerSpeech).map((c) => Date.parse(c.at));
    for (const turn of r.turns) {
      if (!turn.caller?.bargeIn) continue;
      const started = Date.parse(turn.caller.startedAt);
      if (started < from || started > to) continue;
      const cleared = clears.find((at) => at >= started && at - started < 2000);
      if (cleared !== undefined) out.push(cleared - started);
    }
  }
  return out;
}

/** Nearest-rank percentile; NaN of nothing. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

/** The ledger's figures over the turns that started, and the barge-ins that came, in [from, to] (ms since the epoch); the greeting of every call given. */
export function ledgerFigures(calls: readonly CallDetail[], from = -Infinity, to = Infinity) {
  const every = calls.flatMap((c) => [...(c.ledger?.greeting ? [c.ledger.greeting] : []), ...(c.ledger?.turns ?? [])]);
  const turns = calls.flatMap((c) => c.ledger?.turns ?? []).filter((t) => {
    const at = Date.parse(t.at);
    return at >= from && at <= to;
  });
  const added = turns.flatMap((t) => (t.components.switchboardMs === null ? [] : [t.components.switchboardMs]));
  const worst = turns.reduce<LedgerTurn | undefined>((w, t) => ((t.components.switchboardMs ?? -1) > (w?.components.switchboardMs ?? -1) ? t : w), undefined);
  // A barge-in counts when it came in the window, whenever the reply it cut began.
  const stops = every.flatMap((t) =>
    t.bargeIns.flatMap((b) => {
      const at = Date.parse(t.at) + b.atMs;
      return b.stopMs !== null && at >= from && at <= to ? [b.stopMs] : [];
    }),
  );
  const greetingTurns = calls.flatMap((c) => (c.ledger?.greeting ? [c.ledger.greeting] : []));
  const greetings = greetingTurns.flatMap((g) => (g.latencyMs === null ? [] : [g.latencyMs]));
  const of = (values: readonly (number | null)[]) => values.filter((v): v is number => v !== null);
  return {
    turns: turns.length,
    answered: added.length,
    addedP50: percentile(added, 0.5),
    addedP99: percentile(added, 0.99),
    addedMax: percentile(added, 1),
    /** The turn Switchboard added most to, for where its time went. */
    worst,
    bargeIns: stops.length,
    stopP99: percentile(stops, 0.99),
    greetings: greetings.length,
    greetingP50: percentile(greetings, 0.5),
    greetingP99: percentile(greetings, 0.99),
    /** The greeting's time before text-to-speech was asked (all Switchboard's), and text-to-speech's own. */
    greetingAskedP99: percentile(of(greetingTurns.map((g) => g.stamps.ttsAsked)), 0.99),
    greetingTtsP99: percentile(of(greetingTurns.map((g) => g.components.ttsMs)), 0.99),
  };
}

/** `n` to one decimal, or `—` for NaN. */
export function ms(n: number): string {
  return Number.isNaN(n) ? '—' : n.toFixed(1);
}
