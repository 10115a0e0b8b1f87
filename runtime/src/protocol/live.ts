import type { CallLine } from './operations.js';

/**
 * An event Switchboard sends an agent: over its live session or to its callback URL. Crosses the bus
 * on `sb.live.<agentId>` (protocol/index.ts `liveSubject`).
 */
export interface AgentEvent<T = unknown> {
  readonly id: string;
  readonly type: 'message.inbound' | 'message.status' | 'call.status' | 'call.turn' | 'voicemail' | 'waiting.summary';
  readonly agentId: string;
  readonly createdAt: string;
  readonly data: T;
  /** The W3C trace context of the call the event is about, when its agent gave one (sent as the `traceparent` header too). */
  readonly traceparent?: string;
}

/**
 * A call as far as asking an agent for one turn needs it (the fields of a call session it reads).
 * Crosses the bus on `sb.turn.<agentId>` (protocol/index.ts `turnSubject`).
 */
export interface TurnCall {
  readonly agentId: string;
  readonly sessionId: string;
  readonly callSid: string | null;
  readonly direction: 'inbound' | 'outbound';
  readonly from: string;
  readonly to: string;
  readonly systemPrompt: string | null;
  readonly transcript: CallLine[];
}
