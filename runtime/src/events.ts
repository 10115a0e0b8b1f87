import { EventEmitter } from 'node:events';
import type { Channel } from '@switchboard/sdk';
import type { Bus, Subscription } from './bus/bus.js';
import { eventBatchSubject, eventOfSubject, eventWildcard } from './protocol/index.js';

/** What the runtime reports as it works; the gateway turns these into metrics. */
export interface RuntimeEventMap {
  /** A message's status: received, or a send's outcome (with the provider that answered, for sends and their receipts). */
  message: [{ channel: Channel; direction: 'inbound' | 'outbound'; status: string; provider?: string }];
  webhookRejected: [{ provider: string; reason: string }];
  /** One send attempt at a provider: accepted, refused (provably not taken), or ambiguous (a time-out: it may have been). */
  providerAttempt: [{ channel: Channel; provider: string; outcome: 'accepted' | 'refused' | 'ambiguous' }];
  /** A send went on to the next provider of its channel after one provably did not take it; `tts`: a call's speech went on to the next TTS_DRIVER provider. */
  providerFailover: [{ channel: Channel | 'tts'; from: string; to: string }];
  /** A provider's circuit changed state in this process (routing.ts). */
  providerCircuit: [{ provider: string; state: 'closed' | 'open' | 'half-open' }];
  deadLetter: [{ agentId: string; reason: string }];
  usage: [{ channel: Channel; action: string; cost: number }];
  limitRejected: [{ agentId: string; limit: string }];
  /** The contact policy refused a message or call (compliance/refusals.ts); it reached no provider. */
  contactRefused: [{ agentId: string; channel: Channel; code: string }];
  /** An entry was appended to the agent's inbox (after its commit); the agent's listeners hear of it. */
  inbox: [{ agentId: string }];
  /** An inbound message reached its agent, through a live session or a callback, this many seconds after it was stored (stays where delivery runs). */
  delivered: [{ path: 'session' | 'callback'; seconds: number }];
  /** One post to an agent's callback URL and what became of it (stays where delivery runs). */
  callbackAttempt: [{ outcome: 'delivered' | 'retrying' | 'failed' | 'refused' }];
  /** Seconds a voice frame waited: inbound arrival to processed. */
  frameDelay: [number];
  /** One caller turn of a live call, measured when its reply has been said (stays where the call is, like frame delays). */
  voiceTurn: [VoiceTurnMeasure];
}

/** Where one turn's time went, in ms (null: the turn had no such part, or it was not measured). */
export interface VoiceTurnMeasure {
  readonly mode: 'relay' | 'stream';
  /** Caller stopped to the reply's first frame sent. */
  readonly latencyMs: number | null;
  readonly transcriptionMs: number | null;
  readonly agentMs: number | null;
  readonly ttsMs: number | null;
  /** What Switchboard added: the latency less the transcription, agent and speech parts. */
  readonly switchboardMs: number | null;
}

/** The runtime's event stream. */
export class RuntimeEvents extends EventEmitter<RuntimeEventMap> {}

/** Events a cluster's runtime nodes forward to the gateways, whose metrics count them (frame delays stay where the call is). */
export const FORWARDED_EVENTS = ['message', 'webhookRejected', 'deadLetter', 'usage', 'limitRejected', 'contactRefused', 'providerAttempt', 'providerFailover', 'providerCircuit'] as const satisfies readonly (keyof RuntimeEventMap)[];
type ForwardedEvent = (typeof FORWARDED_EVENTS)[number];

/** How long a runtime node gathers events before it publishes them, and the most it publishes at once. */
const FORWARD_EVERY_MS = 50;
const MOST_FORWARDED_AT_ONCE = 256;

/**
 * A runtime node publishes its events, fire and forget, gathered for up to {@link FORWARD_EVERY_MS} into
 * one message on `sb.events.batch` (a send's outcome, usage and provider attempt are one bus message
 * among many sends, not three each); the metrics they feed lag by as much.
 */
export function forwardEvents(events: RuntimeEvents, bus: Bus): void {
  let gathered: [ForwardedEvent, unknown][] = [];
  let timer: NodeJS.Timeout | undefined;
  const publish = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = gathered;
    gathered = [];
    try {
      bus.publish(eventBatchSubject(), batch);
    } catch {
      // The bus is closing: metrics of this moment are lost, nothing else.
    }
  };
  for (const name of FORWARDED_EVENTS) {
    events.on(name, (payload: RuntimeEventMap[ForwardedEvent][0]) => {
      gathered.push([name, payload]);
      if (gathered.length >= MOST_FORWARDED_AT_ONCE) publish();
      else timer ??= setTimeout(publish, FORWARD_EVERY_MS).unref();
    });
  }
}

/**
 * A gateway re-emits the nodes' events locally, in the order each node published them; gateways share a
 * queue group, so each event is counted once across them. A single event on `sb.events.<name>` (a node
 * of the release before batches, during a rolling upgrade) is re-emitted too.
 */
export function receiveEvents(events: RuntimeEvents, bus: Bus): Subscription {
  const known = new Set<string>(FORWARDED_EVENTS);
  const emit = (name: unknown, payload: unknown) => {
    if (typeof name === 'string' && known.has(name)) (events.emit as (name: string, payload: unknown) => boolean)(name, payload);
  };
  return bus.subscribe(
    eventWildcard(),
    (payload, subject) => {
      if (subject !== eventBatchSubject()) return emit(eventOfSubject(subject), payload);
      if (!Array.isArray(payload)) return;
      for (const entry of payload) if (Array.isArray(entry)) emit(entry[0], entry[1]);
    },
    { queue: 'events' },
  );
}
