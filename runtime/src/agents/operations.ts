import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { defineOperation, type AgentOperation } from '../actors/operation.js';
import type { AgentActor } from '../actors/agent-actor.js';
import { AGENT_OPERATIONS } from '../protocol/operations.js';
import type { Provisioner } from '../provisioning/provisioner.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import { agentView } from './view.js';

/** The agent, or NOT_FOUND. */
export function requireAgent(actor: AgentActor): AgentRecord {
  if (!actor.state) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `Agent ${actor.agentId} does not exist.`);
  return actor.state;
}

/** Lifecycle operations every agent actor answers. */
export function lifecycleOperations(provisioner: Provisioner): AgentOperation[] {
  return [
    defineOperation(AGENT_OPERATIONS.provision, {
      needs: [],
      async handle({ actor }, payload) {
        if (actor.state) throw new SwitchboardError(ErrorCodes.CONFLICT, `Agent ${actor.agentId} already exists; deprovision it first or pick another agentId.`);
        const { result, record } = await provisioner.provision(payload);
        actor.state = record;
        return result;
      },
    }),
    defineOperation(AGENT_OPERATIONS.deprovision, {
      needs: [],
      async handle({ actor }) {
        requireAgent(actor);
        const result = await provisioner.deprovision(actor.agentId);
        actor.state = null;
        return result;
      },
    }),
    defineOperation(AGENT_OPERATIONS.get, {
      needs: [],
      async handle({ actor }) {
        return agentView(requireAgent(actor));
      },
    }),
    defineOperation(AGENT_OPERATIONS.setBlockedChannels, {
      needs: ['agents'],
      async handle({ actor, store, clock }, payload) {
        const agent = requireAgent(actor);
        const blockedChannels = [...new Set(payload.blockedChannels)];
        await store.agents.setBlockedChannels(agent.agentId, blockedChannels);
        actor.state = { ...agent, blockedChannels, updatedAt: clock.now().toISOString() };
        return { ok: true as const, agentId: agent.agentId, blockedChannels };
      },
    }),
  ];
}
