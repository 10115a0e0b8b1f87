import { newSecretId } from '../ids.js';
import type { CallLine, CallPurpose } from '../protocol/operations.js';

/** A live call's state, held by the node that holds its media connection. */
export interface CallSession {
  readonly sessionId: string;
  readonly agentId: string;
  callSid: string | null;
  readonly direction: 'inbound' | 'outbound';
  readonly mode: 'relay' | 'stream';
  readonly from: string;
  readonly to: string;
  readonly greeting: string | null;
  readonly systemPrompt: string | null;
  readonly voice: string | null;
  readonly language: string;
  readonly purpose: CallPurpose;
  readonly transcript: CallLine[];
  readonly startedAt: number;
  /** Set once the call took a voicemail or ended. */
  ended: boolean;
  /** The W3C trace context the agent placed the call with, if any. */
  readonly traceparent?: string;
  /** Record the call: the process holding its media (stream mode), or the provider (relay mode). */
  readonly record?: boolean;
}

/** The trace context a call's log lines and events carry, when its agent gave one. */
export function traceOf(call: { readonly traceparent?: string | null }): { traceparent?: string } {
  return call.traceparent ? { traceparent: call.traceparent } : {};
}

/** A new, unguessable session id (a capability: it appears in TwiML and the media URL), time-ordered for the calls index. */
export function newSessionId(): string {
  return newSecretId('ses');
}

/** Live call sessions by session id and call sid; entries go when their call ends. */
export class CallSessions {
  readonly #bySession = new Map<string, CallSession>();
  readonly #byCall = new Map<string, CallSession>();

  add(session: CallSession): CallSession {
    this.#bySession.set(session.sessionId, session);
    if (session.callSid) this.#byCall.set(session.callSid, session);
    return session;
  }

  bindCall(session: CallSession, callSid: string): void {
    session.callSid = callSid;
    this.#byCall.set(callSid, session);
  }

  get(sessionId: string): CallSession | undefined {
    return this.#bySession.get(sessionId);
  }

  byCall(callSid: string): CallSession | undefined {
    return this.#byCall.get(callSid);
  }

  remove(session: CallSession): void {
    this.#bySession.delete(session.sessionId);
    if (session.callSid) this.#byCall.delete(session.callSid);
  }

  get size(): number {
    return this.#bySession.size;
  }
}
