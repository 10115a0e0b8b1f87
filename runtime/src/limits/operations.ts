import { defineOperation, type AgentOperation } from '../actors/operation.js';
import { requireAgent } from '../agents/operations.js';
import { AGENT_OPERATIONS } from '../protocol/operations.js';
import type { Store } from '../store/store.js';
import type { Limiter } from './limiter.js';

/** Limit operations every agent actor answers: changes go through the actor so its ledger follows at once. */
export function limitOperations(limiter: Limiter): AgentOperation[] {
  return [
    defineOperation(AGENT_OPERATIONS.setLimits, {
      needs: ['limits'],
      async handle({ actor, store }, payload) {
        const agent = requireAgent(actor);
        await store.limits.set(agent.agentId, { overrides: payload.overrides, markupPercent: payload.markupPercent });
        await limiter.refresh(actor);
        return limitsView(limiter, store, agent.agentId);
      },
    }),
    defineOperation(AGENT_OPERATIONS.getLimits, {
      needs: ['limits'],
      async handle({ actor, store }) {
        return limitsView(limiter, store, requireAgent(actor).agentId);
      },
    }),
  ];
}

async function limitsView(limiter: Limiter, store: Pick<Store, 'limits'>, agentId: string) {
  const { overrides, markupPercent } = await store.limits.get(agentId);
  return { agentId, limits: await limiter.limitsOf(agentId), overrides, markupPercent };
}
