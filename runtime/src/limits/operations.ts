import type { AgentOperation } from '../actors/actor-system.js';
import { requireAgent } from '../agents/operations.js';
import type { Limiter } from './limiter.js';
import type { Limits } from './limits.js';

/** Limit operations every agent actor answers: changes go through the actor so its ledger follows at once. */
export function limitOperations(limiter: Limiter): Record<string, AgentOperation> {
  return {
    async setLimits({ actor, store }, payload) {
      const agent = requireAgent(actor);
      await store.limits.set(agent.agentId, {
        overrides: payload.overrides as Partial<Limits>,
        markupPercent: (payload.markupPercent as number | null | undefined) ?? null,
      });
      await limiter.refresh(actor);
      return limitsView(limiter, store, agent.agentId);
    },
    async getLimits({ actor, store }) {
      return limitsView(limiter, store, requireAgent(actor).agentId);
    },
  };
}

async function limitsView(limiter: Limiter, store: Parameters<AgentOperation>[0]['store'], agentId: string) {
  const { overrides, markupPercent } = await store.limits.get(agentId);
  return { agentId, limits: await limiter.limitsOf(agentId), overrides, markupPercent };
}
