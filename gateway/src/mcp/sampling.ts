import { turnSubject, type CallSession, type Runtime, type Subscription } from '@switchboard/runtime';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { McpSession } from './mcp-session.js';
import type { McpSessions } from './mcp-sessions.js';

/** A call as far as sampling one turn needs it. */
type TurnCall = Pick<CallSession, 'sessionId' | 'callSid' | 'direction' | 'from' | 'to' | 'systemPrompt' | 'transcript'>;

/** A turn asked of another gateway: the call so far, or a probe (does a session with sampling exist?). */
type TurnRequest = { probe: true } | { call: TurnCall; timeoutMs: number };

/**
 * Lets live calls ask a connected agent for each turn through MCP sampling: the conversation so far
 * goes out as `sampling/createMessage`, the reply text is spoken. A cluster gateway holding a call
 * whose agent's session is on another gateway asks there, on the agent's turn subject; the gateway
 * holding the session answers (queue group `turn`), and no responders means no such session anywhere.
 */
export function connectSampling(runtime: Runtime, sessions: McpSessions): void {
  const local = (agentId: string): McpSession | undefined => {
    const session = sessions.sessionFor(agentId);
    return session?.supportsSampling ? session : undefined;
  };
  if (runtime.cluster !== 'gateway') {
    runtime.voice.turns.setSampler(
      (call, timeoutMs) => {
        const session = local(call.agentId);
        return session ? sample(session, call, timeoutMs) : undefined;
      },
      (agentId) => local(agentId) !== undefined,
    );
    return;
  }
  answerTurns(runtime, sessions, local);
  runtime.voice.turns.setSampler(
    (call, timeoutMs) => {
      const session = local(call.agentId);
      if (session) return sample(session, call, timeoutMs);
      const request: TurnRequest = { call: turnCall(call), timeoutMs };
      // No session anywhere is no answer (the callback URL is next), not a failure to log.
      return runtime.bus
        .request<string>(turnSubject(call.agentId), request, { timeoutMs: timeoutMs + 1000 })
        .catch((err: unknown) => (codeOf(err) === ErrorCodes.UNAVAILABLE ? '' : Promise.reject(err)));
    },
    async (agentId) =>
      local(agentId) !== undefined ||
      runtime.bus.request<boolean>(turnSubject(agentId), { probe: true } satisfies TurnRequest, { timeoutMs: 2000 }).then(
        (answer) => answer === true,
        () => false,
      ),
  );
}

/** A cluster gateway answers on an agent's turn subject while it holds a session of the agent with sampling. */
function answerTurns(runtime: Runtime, sessions: McpSessions, local: (agentId: string) => McpSession | undefined): void {
  const listening = new Map<string, Subscription>();
  const handler = (agentId: string) => (data: unknown) => {
    const session = local(agentId);
    if (!session) throw new SwitchboardError(ErrorCodes.UNAVAILABLE, `No MCP session with sampling for agent ${agentId} here.`);
    const request = data as TurnRequest;
    return 'probe' in request ? true : sample(session, request.call, request.timeoutMs);
  };
  const reconcile = ({ agentId }: McpSession) => {
    if (!agentId) return;
    const held = listening.get(agentId);
    if (local(agentId) && !held) listening.set(agentId, runtime.bus.subscribe(turnSubject(agentId), handler(agentId), { queue: 'turn' }));
    else if (!local(agentId) && held) {
      held.unsubscribe();
      listening.delete(agentId);
    }
  };
  sessions.on('open', reconcile);
  sessions.on('close', reconcile);
}

function sample(session: McpSession, call: TurnCall, timeoutMs: number): Promise<string> {
  return session
    .createMessage(
      {
        messages: call.transcript.map((line) => ({ role: line.role === 'caller' ? ('user' as const) : ('assistant' as const), content: { type: 'text' as const, text: line.text } })),
        systemPrompt: call.systemPrompt ?? `You are on a live phone call (${call.direction}). Answer briefly, in speakable sentences.`,
        maxTokens: 300,
        metadata: { switchboard: { sessionId: call.sessionId, callSid: call.callSid, from: call.from, to: call.to } },
      },
      { timeout: timeoutMs },
    )
    .then((result) => (result.content.type === 'text' ? result.content.text : ''));
}

function turnCall({ sessionId, callSid, direction, from, to, systemPrompt, transcript }: CallSession): TurnCall {
  return { sessionId, callSid, direction, from, to, systemPrompt, transcript };
}

function codeOf(err: unknown): unknown {
  return typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
}
