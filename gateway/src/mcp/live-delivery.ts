import { liveSubject, type AgentEvent, type LiveSink, type Runtime, type Subscription } from '@switchboard/runtime';
import type { McpSession } from './mcp-session.js';
import type { McpSessions } from './mcp-sessions.js';

const LOGGERS: Partial<Record<AgentEvent['type'], string>> = {
  'message.inbound': 'switchboard.inbound',
  'message.status': 'switchboard.status',
};

/**
 * Connects the runtime's delivery chain to live MCP sessions: an event for an agent with a live
 * session goes out as `notifications/message`; a session that cannot take it (closed, or too far
 * behind) reports false, and the chain moves on to the callback URL or a dead letter. Embedded, the
 * runtime calls the sink directly; a cluster gateway listens on the live subject of each agent it
 * holds a session for, where runtime nodes ask (one gateway of the queue group answers).
 */
export function connectLiveDelivery(runtime: Runtime, sessions: McpSessions): void {
  const sink: LiveSink = async (agentId, event) => {
    const session = sessions.sessionFor(agentId);
    const logger = LOGGERS[event.type];
    if (!session || !logger) return false;
    try {
      await session.notify({ method: 'notifications/message', params: { level: 'info', logger, data: event.data } });
      return true;
    } catch {
      return false;
    }
  };
  if (runtime.cluster === 'gateway') listenForLiveDelivery(runtime, sessions, sink);
  else runtime.delivery.setLiveSink(sink, (agentId) => sessions.sessionFor(agentId) !== undefined);
  sessions.on('open', (session) => void announceWaiting(runtime, session));
}

/** A cluster gateway answers on an agent's live subject while it holds at least one session of the agent. */
function listenForLiveDelivery(runtime: Runtime, sessions: McpSessions, sink: LiveSink): void {
  const listening = new Map<string, Subscription>();
  sessions.on('open', ({ agentId }) => {
    if (!agentId || listening.has(agentId)) return;
    listening.set(agentId, runtime.bus.subscribe(liveSubject(agentId), (event) => sink(agentId, event as AgentEvent), { queue: 'live' }));
  });
  sessions.on('close', ({ agentId }) => {
    if (!agentId || sessions.sessionFor(agentId)) return;
    listening.get(agentId)?.unsubscribe();
    listening.delete(agentId);
  });
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
