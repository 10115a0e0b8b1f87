import type { AgentView } from '../protocol/operations.js';
import type { AgentRecord } from '../store/repositories/agents.js';

/** An agent as the admin API shows it: no secrets. */
export function agentView(record: AgentRecord): AgentView {
  return {
    agentId: record.agentId,
    displayName: record.displayName,
    status: record.status,
    channels: Object.fromEntries(record.channels.map((c) => [c.channel, c.address])),
    blockedChannels: [...record.blockedChannels],
    callbackUrl: record.callbackUrl,
    createdAt: record.createdAt,
  };
}
