import type { AgentOperationContext, AgentOperations } from '../actors/actor-system.js';
import { requireAgent } from '../agents/operations.js';
import type { Limiter } from './limiter.js';

/** Limit operations every agent actor answers: changes go through the actor so its ledger follows at once. */
export function limitOperations(limiter: Limiter): Pick<AgentOperations, 'setLimits' | 'getLimits'> {
  return {
    async setLimits({ actor, store }, payload) {
      const agent = requireAgent(actor);
      await store.limits.set(agent.agentId, { overrides: payload.overrides, markupPercent: payload.markupPercent });
      await limiter.refresh(actor);
      return limitsView(limiter, store, agent.agentId);
    },
    async getLimits({ actor, store }) {
      return limitsView(limiter, store, requireAgent(actor).agentId);
    },
  };
}

async function limitsView(limiter: Limiter, store: AgentOperationContext['store'], agentId: string) {
  const { overrides, markupPercent } = await store.limits.get(agentId);
  return { agentId, limits: await limiter.limitsOf(agentId), overrides, markupPercent };
}
