import type { WebhookTampering, WebhookTarget } from '../inbound-types.js';
import type { SimCallStatus } from '../types.js';
import type { AudioProbe } from './audio-probe.js';

/** How a `<Connect>` attaches the call: ConversationRelay (text) or Media Streams (μ-law audio). */
export type VoiceMode = 'relay' | 'stream';

/** One thing the simulated person on the phone does once the call is connected to the agent. */
export type PhoneStep =
  | {
      readonly kind: 'say';
      readonly text: string;
      /** BCP-47 tag sent with the relay prompt; the script's language by default. */
      readonly language?: string;
      /**
       * Speak while the agent is still talking (after `afterMs` of its reply): the relay gets
       * `interrupt` then the prompt; a stream hears speech over its audio and should answer `clear`.
       * Otherwise the phone waits for the agent's turn to end first (its reply, or the greeting).
       */
      readonly bargeIn?: boolean;
      /** With `bargeIn`: how far into the agent's reply to start speaking; 300 ms by default. */
      readonly afterMs?: number;
    }
  | { readonly kind: 'dtmf'; readonly digits: string }
  /** Silence for `ms` (the stream keeps sending silent frames). */
  | { readonly kind: 'pause'; readonly ms: number }
  /** Listen: for `ms` when given, else until the agent has answered the last thing said and gone quiet. */
  | { readonly kind: 'listen'; readonly ms?: number }
  | { readonly kind: 'hangup' };

/** What the simulated person does on a call: answer (outbound), then the steps, then hang up. */
export interface PhoneScript {
  /** Outbound calls: how the callee answers; `answer` by default. */
  readonly answer?: 'answer' | 'busy' | 'no-answer' | 'failed';
  /** Outbound calls: how long the phone rings before it is answered (or given up), in ms. */
  readonly ringMs?: number;
  /** What is said and done once connected. A string is `{kind:'say', text}`. */
  readonly steps?: ReadonlyArray<PhoneStep | string>;
  /** Language of relay prompts; `en-US` by default. */
  readonly language?: string;
  /** After the last step: stay on the line until the agent hangs up (bounded by maxDurationMs), instead of listening to one reply and hanging up. */
  readonly stayOnLine?: boolean;
  /** How long a `say` or `listen` waits for the agent before going on; 15 s by default. */
  readonly replyTimeoutMs?: number;
  /** Silence that ends the agent's turn; 500 ms by default. */
  readonly quietMs?: number;
  /** Hang up after this long whatever happens; 120 s by default. */
  readonly maxDurationMs?: number;
  /** Break the signature of the WebSocket upgrade, to test the gateway's refusal. */
  readonly upgrade?: WebhookTampering;
  /** What a `<Dial>`ed party does: `completed` (answers, talks `dialTalkMs`) by default. */
  readonly dialOutcome?: 'completed' | 'busy' | 'no-answer' | 'failed';
  /** How long a `<Dial>`ed party talks before hanging up; 1 s by default. */
  readonly dialTalkMs?: number;
}

/** An inbound call: the simulator rings the agent's number and posts the signed voice webhook. */
export interface PhoneCallOptions extends WebhookTarget, WebhookTampering {
  /** The caller. */
  from: string;
  /** The number called (the agent's number). */
  to: string;
  /** The mode the caller expects the gateway to connect with; a different one is recorded in `errors`. */
  mode?: VoiceMode;
  script?: PhoneScript;
  /** Where status callbacks go; `${gatewayUrl}/webhooks/${agentId}/call-status` for an agentId target, `false` for none. */
  statusCallback?: string | false;
  /** Status callback events; `['completed']` by default, as a number's status callback sends. */
  statusCallbackEvents?: string[];
  /** `telnyx`: the call comes through Telnyx Call Control (signed JSON events, an answer command, Telnyx's stream frames); Twilio by default. */
  provider?: 'twilio' | 'telnyx';
}

/** A TwiML document the phone fetched (voice webhook, outbound Url, action, Redirect). */
export interface TwimlFetch {
  url: string;
  method: string;
  status: number;
  body: string;
  at: Date;
}

/** Something the phone heard or did because of TwiML or a relay message. */
export type HeardItem =
  | { kind: 'say'; text: string; voice?: string; language?: string; at: Date }
  | ({
      kind: 'play';
      url: string;
      /** `twiml` for `<Play>`, `relay` for a ConversationRelay `play` message. */
      via: 'twiml' | 'relay';
      at: Date;
    } & AudioProbe)
  | { kind: 'pause'; seconds: number; at: Date }
  | { kind: 'dial'; numbers: string[]; callerId?: string; outcome: string; talkMs: number; at: Date }
  | { kind: 'hangup'; at: Date }
  | { kind: 'reject'; reason: string; at: Date }
  | { kind: 'redirect'; url: string; at: Date }
  | { kind: 'connect'; mode: VoiceMode; url: string; parameters: Record<string, string>; attributes: Record<string, string>; at: Date }
  | { kind: 'send-digits'; digits: string; at: Date }
  | { kind: 'unsupported'; verb: string; at: Date };

/** What the agent did in one turn. */
export interface AgentReply {
  /** Relay: the `text` tokens joined (the greeting in turn 0). Stream: empty. */
  text: string;
  tokens: number;
  /** Stream: μ-law audio received in this turn (up to `recordAudioMs` per call). */
  audio: Buffer;
  /** Stream: ms of audio received; relay: ms the text takes to speak. */
  audioMs: number;
  /** Stream: ms of received audio whose level is speech, not silence. */
  speechMs: number;
  /** ms from the end of the caller's utterance to the first reply token or frame. */
  latencyMs?: number;
  firstAt?: Date;
  lastAt?: Date;
  /** The caller barged in while this reply was playing. */
  interrupted: boolean;
  /** Relay: `last: true` arrived. */
  complete: boolean;
}

/** One turn: what the caller said (none in turn 0, the greeting) and what the agent answered. */
export interface CallTurn {
  index: number;
  caller?: { text?: string; digits?: string; bargeIn: boolean; startedAt: Date; endedAt?: Date };
  agent: AgentReply;
  /** The agent did not answer within replyTimeoutMs. */
  timedOut: boolean;
}

/** A mark the gateway sent on a media stream, and when its audio finished playing. */
export interface MarkRecord {
  name: string;
  receivedAt: Date;
  answeredAt?: Date;
  /** Answered because a `clear` dropped the audio before it. */
  cleared: boolean;
  /** ms of audio queued ahead of the mark when it arrived. */
  queuedMs: number;
}

/** A `clear` the gateway sent, and how much queued audio it dropped. */
export interface ClearRecord {
  at: Date;
  droppedMs: number;
  /** The caller was speaking (barge-in) when it arrived. */
  duringCallerSpeech: boolean;
}

/** Media frame pacing and playback, for stream mode. */
export interface FrameStats {
  /** Media frames the phone sent (one per 20 ms). */
  sent: number;
  /** Frames sent more than `lateFrameMs` after their due time. */
  late: number;
  maxJitterMs: number;
  meanJitterMs: number;
  /** Media messages received from the gateway. */
  received: number;
  receivedMs: number;
  playedMs: number;
  clearedMs: number;
  speechMs: number;
}

/** One `<Connect>` session. */
export interface ConnectionRecord {
  mode: VoiceMode;
  url: string;
  /** The URL the socket was opened on, when `urlRewrites` changed it. */
  connectedUrl: string;
  signature: 'valid' | 'tampered' | 'omitted';
  /** 101 when upgraded, else the HTTP status answered (0: no answer). */
  upgradeStatus: number;
  parameters: Record<string, string>;
  /** streamSid (stream) or sessionId (relay). */
  sessionId: string;
  openedAt: Date;
  closedAt?: Date;
  closeCode?: number;
  closedBy?: 'caller' | 'agent' | 'redirect' | 'error';
  /** Relay: `handoffData` of the `end` message. */
  handoffData?: string;
}

/** A status the call went through, and the callback posted for it (if any). */
export interface StatusEvent {
  status: SimCallStatus;
  at: Date;
  /** The StatusCallbackEvent name, when a callback was posted. */
  event?: string;
  callbackUrl?: string;
  /** HTTP status the callback got; 0 when it failed. */
  callbackStatus?: number;
}

/** Why a call ended. */
export type CallEnd = 'caller' | 'agent' | 'twiml-end' | 'api' | 'timeout' | 'not-answered' | 'error' | 'reset';

/** Everything a simulated call heard and did. */
export interface CallRecording {
  callSid: string;
  accountSid: string;
  direction: 'inbound' | 'outbound-api';
  from: string;
  to: string;
  status: SimCallStatus;
  mode: VoiceMode | null;
  endedBy?: CallEnd;
  createdAt: Date;
  answeredAt?: Date;
  endedAt?: Date;
  durationSeconds: number;
  /** Twilio's price string (`-0.01400`), set when the call ends. */
  price: string | null;
  twiml: TwimlFetch[];
  heard: HeardItem[];
  connections: ConnectionRecord[];
  turns: CallTurn[];
  marks: MarkRecord[];
  clears: ClearRecord[];
  frames: FrameStats;
  statusEvents: StatusEvent[];
  /** Protocol problems seen: a refused webhook, bad TwiML, an unknown message, a wrong streamSid... */
  errors: string[];
}

/** A call on the simulated phone: live state, and `done` when it is over. */
export interface PhoneCall {
  readonly callSid: string;
  readonly direction: 'inbound' | 'outbound-api';
  readonly status: SimCallStatus;
  /** The recording so far; it keeps growing until `done` resolves. */
  readonly recording: CallRecording;
  readonly done: Promise<CallRecording>;
  /** Adds steps to the end of the script (also on a call whose steps ran out while it stays on the line). */
  perform(...steps: Array<PhoneStep | string>): void;
  /** The simulated person hangs up now. */
  hangup(): void;
}

/** Matches outbound calls to a script: a number (`+1…`, `client:`, `sip:`) is the callee; anything else an agentId in the call's Url; `*` any call. */
export type OutboundMatch = string;

/** Settings of the simulator's phone (`SimulatorOptions.phone`). */
export interface PhoneOptions {
  /** Answer calls created through Calls.json; true by default. */
  answerOutbound?: boolean;
  /** Outbound: queued → ringing, in ms; 200 by default. */
  dialMs?: number;
  /** Outbound: ringing → answered, in ms; 1000 by default. A script's ringMs wins. */
  ringMs?: number;
  /** Script of outbound calls no `onOutbound` rule matches. */
  outbound?: PhoneScript;
  /** Called before each scripted utterance is spoken (stream-mode ones are also registered with the simulated Deepgram). */
  onUtterance?: (text: string, info: { callSid: string; mode: VoiceMode; language: string }) => void;
  /** A frame sent later than this after its due time counts as late; 20 ms by default. */
  lateFrameMs?: number;
  /** Received stream audio kept per call, in ms; 30 s by default (0 keeps none; load tests should). */
  recordAudioMs?: number;
  /** Prefix rewrites for URLs the phone connects to (`{"wss://public.example": "ws://127.0.0.1:3000"}`); signatures still cover the original URL. */
  urlRewrites?: Record<string, string>;
}

/**
 * Shared media clock figures: one timer ticks every 5 ms, each time the quarter of the live streams
 * whose phase it is, so every stream is ticked every 20 ms. A tick here is one such step.
 */
export interface PacingStats {
  activeStreams: number;
  activeCalls: number;
  ticks: number;
  /** Ticks that ran more than `lateFrameMs` after their due time. */
  lateTicks: number;
  maxTickLagMs: number;
  /** Ticks dropped after a stall of more than 500 ms (their frames were never sent). */
  skippedTicks: number;
  /** Mean and max time one tick (a quarter of the streams) took, in ms. */
  meanTickCostMs: number;
  maxTickCostMs: number;
}

/** The simulator's phone: places inbound calls to the gateway and answers the calls it places. */
export interface SimulatorPhone {
  /** Rings the agent: posts the signed voice webhook, then runs the TwiML answered. */
  call(options: PhoneCallOptions): Promise<PhoneCall>;
  /** How outbound calls matching `match` are answered; returns a function that removes the rule. */
  onOutbound(match: OutboundMatch, script: PhoneScript): () => void;
  /** The outbound rules, oldest first (the newest matching rule wins). */
  outboundRules(): Array<{ match: OutboundMatch; script: PhoneScript }>;
  /** Calls placed or answered, oldest first (bounded by recordLimit). */
  calls(): PhoneCall[];
  get(callSid: string): PhoneCall | undefined;
  pacing(): PacingStats;
}
