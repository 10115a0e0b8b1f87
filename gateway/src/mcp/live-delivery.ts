import type { AgentEvent, GatewayPorts } from '@switchboard/runtime';
import type { McpSession } from './mcp-session.js';
import type { McpSessions } from './mcp-sessions.js';
import { sampleTurn } from './sampling.js';

const LOGGERS: Partial<Record<AgentEvent['type'], string>> = {
  'message.inbound': 'switchboard.inbound',
  'message.status': 'switchboard.status',
};

/**
 * Makes this gateway's MCP sessions the way the runtime reaches their agents live (see the runtime's
 * LiveReach, which also carries it across a cluster): an event for an agent with a live session goes
 * out as `notifications/message`, and a session that cannot take it (closed, or too far behind)
 * reports false, so the chain moves on to the callback URL or a dead letter; a live call's turns go to
 * a session that supports sampling. On connect, a session is told how many messages wait for it.
 */
export function connectAgentReach(reach: GatewayPorts['reach'], sessions: McpSessions): void {
  const withSampling = (agentId: string): McpSession | undefined => {
    const session = sessions.sessionFor(agentId);
    return session?.supportsSampling ? session : undefined;
  };
  const changed = reach.serve({
    async deliver(agentId, event) {
      const session = sessions.sessionFor(agentId);
      const logger = LOGGERS[event.type];
      if (!session || !logger) return false;
      try {
        await session.notify({ method: 'notifications/message', params: { level: 'info', logger, data: event.data } });
        return true;
      } catch {
        return false;
      }
    },
    holds: (agentId) => sessions.sessionFor(agentId) !== undefined,
    sample(call, timeoutMs) {
      const session = withSampling(call.agentId);
      return session && sampleTurn(session, call, timeoutMs);
    },
    samples: (agentId) => withSampling(agentId) !== undefined,
  });
  const follow = ({ agentId }: McpSession) => {
    if (agentId) changed(agentId);
  };
  sessions.on('open', follow);
  sessions.on('close', follow);
  sessions.on('open', (session) => void announceWaiting(reach, session));
}

/** On connect, tells the agent how many messages wait for it; fetching them stays an explicit call. */
async function announceWaiting(reach: GatewayPorts['reach'], session: McpSession): Promise<void> {
  if (!session.agentId) return;
  const waiting = await reach.waiting(session.agentId).catch(() => 0);
  const data = {
    agentId: session.agentId,
    waitingMessages: waiting,
    hint: waiting > 0 ? 'Call comms_get_waiting_messages to fetch them; each is returned once.' : 'No messages are waiting.',
  };
  await session.notify({ method: 'notifications/message', params: { level: 'info', logger: 'switchboard.waiting', data } }).catch(() => undefined);
}
