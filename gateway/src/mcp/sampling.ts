import type { Runtime } from '@switchboard/runtime';
import type { McpSessions } from './mcp-sessions.js';

/**
 * Lets live calls ask a connected agent for each turn through MCP sampling: the conversation so far
 * goes out as `sampling/createMessage`, the reply text is spoken.
 */
export function connectSampling(runtime: Runtime, sessions: McpSessions): void {
  runtime.voice.turns.setSampler(
    (call, timeoutMs) => {
      const session = sessions.sessionFor(call.agentId);
      if (!session?.supportsSampling) return undefined;
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
    },
    (agentId) => sessions.sessionFor(agentId)?.supportsSampling === true,
  );
}
