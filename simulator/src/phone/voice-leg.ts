import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';
import type { SimCall } from '../types.js';
import type { Conversation } from './conversation.js';
import type { ClockListener, FrameClock } from './frame-clock.js';
import type { CallRecording, ConnectionRecord, VoiceMode } from './phone-types.js';

/** What a leg needs from its call. */
export interface LegContext {
  readonly call: SimCall;
  readonly recording: CallRecording;
  readonly connection: ConnectionRecord;
  readonly conversation: Conversation;
  readonly clock: FrameClock;
  readonly lateFrameMs: number;
  /** Fetches and records audio the agent asked to play (relay `play`). */
  play(url: string): void;
  /** Records a protocol problem. */
  error(message: string): void;
}

/** The caller's side of one `<Connect>`: a ConversationRelay or Media Streams socket. */
export interface VoiceLeg {
  readonly mode: VoiceMode;
  /** Sends the opening messages and joins the media clock. */
  start(): void;
  /** Speaks an utterance; resolves once it has been said (or the socket closed). */
  speak(text: string, language: string, bargeIn: boolean): Promise<void>;
  sendDigits(digits: string): Promise<void>;
  /** The agent is talking now (audio or text still playing). */
  agentSpeaking(now: number): boolean;
  /** The agent has finished talking and been silent for `quietMs`. */
  agentQuiet(now: number, quietMs: number): boolean;
  /** Ends the socket from the phone's side: the caller hung up, a redirect, or the API ended the call. */
  close(by: 'caller' | 'agent' | 'redirect' | 'error'): void;
  /** Resolves when the socket has closed, whoever closed it. */
  readonly closed: Promise<void>;
}

const MAX_ERRORS = 100;

/** Records a problem once the call has not already recorded too many. */
export function recordError(recording: CallRecording, message: string): void {
  if (recording.errors.length < MAX_ERRORS) recording.errors.push(message);
}

/** `prefix` + 32 hex digits, the shape of Twilio sids (MZ streams, VX relay sessions). */
export function sidOf(prefix: string): string {
  return prefix + randomBytes(16).toString('hex');
}

/**
 * Resolves when the leg's socket closes, after recording the close on the connection (the agent
 * closed it unless the phone said otherwise), taking the leg off the media clock and releasing
 * whatever waits on the conversation; `onClose` runs the leg's own clean-up first.
 */
export function legClosed(ws: WebSocket, ctx: LegContext, leg: ClockListener, onClose: () => void): Promise<void> {
  return new Promise((resolve) => {
    ws.on('close', (code) => {
      onClose();
      const { connection } = ctx;
      connection.closedAt = new Date();
      connection.closeCode = code;
      connection.closedBy ??= 'agent';
      ctx.clock.delete(leg);
      ctx.conversation.cancelWaits();
      resolve();
    });
  });
}

/** Closes a socket cleanly, and drops it if the other side does not finish the close handshake within a second. */
export function closeSocket(ws: WebSocket): void {
  ws.close(1000);
  setTimeout(() => ws.terminate(), 1000).unref();
}
