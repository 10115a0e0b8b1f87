import type { AgentEvent, Runtime } from '@switchboard/runtime';
import type { McpSession } from './mcp-session.js';
import type { McpSessions } from './mcp-sessions.js';

const LOGGERS: Partial<Record<AgentEvent['type'], string>> = {
  'message.inbound': 'switchboard.inbound',
  'message.status': 'switchboard.status',
};

/**
 * Connects the runtime's delivery chain to live MCP sessions: an event for an agent with a live
 * session goes out as `notifications/message`; a session that cannot take it (closed, or too far
 * behind) reports false, and the chain moves on to the callback URL or a dead letter.
 */
export function connectLiveDelivery(runtime: Runtime, sessions: McpSessions): void {
  runtime.delivery.setLiveSink(async (agentId, event) => {
    const session = sessions.sessionFor(agentId);
    const logger = LOGGERS[event.type];
    if (!session || !logger) return false;
    try {
      await session.notify({ method: 'notifications/message', params: { level: 'info', logger, data: event.data } });
      return true;
    } catch {
      return false;
    }
  }, (agentId) => sessions.sessionFor(agentId) !== undefined);
  sessions.on('open', (session) => void announceWaiting(runtime, session));
}

/** On connect, tells the agent how many messages wait for it; fetching them stays an explicit call. */
async function announceWaiting(runtime: Runtime, session: McpSession): Promise<void> {
  if (!session.agentId) return;
  const waiting = await runtime.store.deadLetters.countPending(session.agentId).catch(() => 0);
  const data = {
    agentId: session.agentId,
    waitingMessages: waiting,
    hint: waiting > 0 ? 'Call comms_get_waiting_messages to fetch them; each is returned once.' : 'No messages are waiting.',
  };
  await session.notify({ method: 'notifications/message', params: { level: 'info', logger: 'switchboard.waiting', data } }).catch(() => undefined);
}
