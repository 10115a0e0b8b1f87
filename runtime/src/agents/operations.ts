import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { AgentOperations } from '../actors/actor-system.js';
import type { AgentActor } from '../actors/agent-actor.js';
import type { Provisioner } from '../provisioning/provisioner.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import { agentView } from './view.js';

/** The agent, or NOT_FOUND. */
export function requireAgent(actor: AgentActor): AgentRecord {
  if (!actor.state) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `Agent ${actor.agentId} does not exist.`);
  return actor.state;
}

/** Lifecycle operations every agent actor answers. */
export function lifecycleOperations(provisioner: Provisioner): Pick<AgentOperations, 'provision' | 'deprovision' | 'get' | 'setBlockedChannels'> {
  return {
    async provision({ actor }, payload) {
      if (actor.state) throw new SwitchboardError(ErrorCodes.CONFLICT, `Agent ${actor.agentId} already exists; deprovision it first or pick another agentId.`);
      const { result, record } = await provisioner.provision(payload);
      actor.state = record;
      return result;
    },
    async deprovision({ actor }) {
      requireAgent(actor);
      const result = await provisioner.deprovision(actor.agentId);
      actor.state = null;
      return result;
    },
    async get({ actor }) {
      return agentView(requireAgent(actor));
    },
    async setBlockedChannels({ actor, store }, payload) {
      const agent = requireAgent(actor);
      const blockedChannels = [...new Set(payload.blockedChannels)];
      await store.agents.setBlockedChannels(agent.agentId, blockedChannels);
      actor.state = { ...agent, blockedChannels, updatedAt: new Date().toISOString() };
      return { ok: true, agentId: agent.agentId, blockedChannels };
    },
  };
}
