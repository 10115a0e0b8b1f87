import type { TurnCall } from '@switchboard/runtime';
import type { McpSession } from './mcp-session.js';

/** Asks an agent's MCP session for a call's next turn: the conversation so far goes out as `sampling/createMessage`, the reply text is spoken. */
export function sampleTurn(session: McpSession, call: TurnCall, timeoutMs: number): Promise<string> {
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
