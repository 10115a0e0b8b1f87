import type { CallbackFetch } from '../delivery/callback-address.js';
import { agentEvent, postCallback } from '../delivery/agent-events.js';
import type { Logger } from '../logger.js';
import type { SecretBox } from '../secrets.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import type { LiveReach } from '../agents/live-reach.js';
import { traceOf, type CallSession } from './call-session.js';
import type { TurnTimer } from './call-ledger.js';
import { contextFromHeaders, inSpan, SpanKind, tracing } from '../tracing.js';

/** The agent's answer to one turn of a call. */
export interface TurnReply {
  readonly text: string;
  /** Hang up after saying the text. */
  readonly end?: boolean;
  /** Transfer the caller to this number after saying the text. */
  readonly transferTo?: string;
}

/**
 * Asks a live MCP session to sample a reply (`sampling/createMessage`), given the conversation so far
 * (see LiveReach: in process, or over NATS); `sample` gives undefined or '' when no session can.
 */
export type Sampler = Pick<LiveReach, 'sample' | 'samples'>;

/**
 * Where a call's turns are answered: the agent's live MCP session when it supports sampling, else its
 * callback URL (a signed `call.turn` event whose response body is the reply), else nobody — then the
 * call becomes an answering machine.
 */
export class AgentTurns {
  constructor(
    private readonly box: SecretBox,
    private readonly logger: Logger,
    private readonly timeoutMs: number,
    /** The agents' live sessions that answer turns (MCP sampling), wherever they are held. */
    private readonly sampler: Sampler,
    /** How the call.turn post reaches the callback URL (callbackFetch of the settings). */
    private readonly send: CallbackFetch = fetch,
  ) {}

  /** Whether anyone can answer this agent's turns right now. */
  async reachable(agent: AgentRecord): Promise<boolean> {
    return (await this.sampler.samples(agent.agentId)) || (agent.callbackUrl !== null && agent.sealedSigningSecret !== null);
  }

  /** The agent's reply to the caller's last words, or null when no one answered in time; `timer` takes the turn's agent stamps. */
  reply(session: CallSession, agent: AgentRecord, timer?: TurnTimer): Promise<TurnReply | null> {
    if (!tracing.on) return this.#reply(session, agent, timer);
    // Traced, each turn is a span in the call's trace: under the agent's traceparent of the call when it gave one.
    const parent = session.traceparent ? contextFromHeaders({ traceparent: session.traceparent }) : undefined;
    const attributes = { 'switchboard.agent_id': agent.agentId, 'switchboard.call_session': session.sessionId, 'switchboard.turn': session.transcript.length };
    return inSpan('call turn', SpanKind.INTERNAL, attributes, () => this.#reply(session, agent, timer), parent);
  }

  async #reply(session: CallSession, agent: AgentRecord, timer?: TurnTimer): Promise<TurnReply | null> {
    timer?.mark('agentAsked');
    const sampled = this.sampler.sample(session, this.timeoutMs);
    if (sampled) {
      try {
        const text = await sampled;
        if (text.trim()) {
          // A sampled reply arrives whole: it begins and ends at once.
          timer?.mark('replyBegan');
          timer?.mark('replyEnded');
          return { text: text.trim() };
        }
      } catch (err) {
        this.logger.warn({ err, agentId: agent.agentId, sessionId: session.sessionId, ...traceOf(session) }, 'sampling failed; trying the callback URL');
      }
    }
    if (!agent.callbackUrl || !agent.sealedSigningSecret) return null;
    const data = {
      sessionId: session.sessionId,
      callSid: session.callSid,
      direction: session.direction,
      from: session.from,
      to: session.to,
      text: session.transcript.at(-1)?.text ?? '',
      transcript: session.transcript,
    };
    const event = { ...agentEvent('call.turn', agent.agentId, data), ...traceOf(session) };
    try {
      const body = await postCallback(this.send, agent.callbackUrl, this.box.open(agent.sealedSigningSecret), event, this.timeoutMs, () => timer?.mark('replyBegan'));
      timer?.mark('replyEnded');
      return parseReply(body);
    } catch (err) {
      this.logger.warn({ err, agentId: agent.agentId, sessionId: session.sessionId, ...traceOf(session) }, 'call.turn callback failed');
      return null;
    }
  }
}

/** Reads `{text, end?, transferTo?}` from a callback response; anything else is no reply. */
export function parseReply(body: string): TurnReply | null {
  try {
    const value = JSON.parse(body) as { text?: unknown; end?: unknown; transferTo?: unknown };
    if (typeof value.text !== 'string') return null;
    const transferTo = typeof value.transferTo === 'string' && /^\+[1-9][0-9]{6,14}$/.test(value.transferTo) ? value.transferTo : undefined;
    return { text: value.text, ...(value.end === true ? { end: true } : {}), ...(transferTo ? { transferTo } : {}) };
  } catch {
    return null;
  }
}
