import { CHANNELS, type Channel } from '@switchboard/sdk';
import { defineOperation, type AgentOperation } from '../actors/operation.js';
import { AGENT_OPERATIONS, type ChannelStatus } from '../protocol/operations.js';
import { requireAgent } from '../agents/operations.js';
import { newSigningSecret } from '../provisioning/provisioner.js';
import type { MessagingContext } from './context.js';
import { inboundOperation } from './inbound.js';
import { reconcileOperation } from './reconcile.js';
import { resumeSendOperation, sendOperation } from './send.js';

/** Messaging operations every agent actor answers. */
export function messagingOperations(context: MessagingContext): AgentOperation[] {
  return [
    sendOperation(context),
    resumeSendOperation(context),
    reconcileOperation(context),
    inboundOperation(context),

    defineOperation(AGENT_OPERATIONS.setCallbackUrl, {
      needs: ['agents', 'callbacks'],
      async handle({ actor, store, clock }, payload) {
        const agent = requireAgent(actor);
        const { callbackUrl } = payload;
        // Keep the secret across URL changes so the agent's receiver keeps verifying; clearing drops both.
        // It goes back sealed: the caller opens it (agent-client.ts), the bus never carries it in clear.
        const sealed = callbackUrl === null ? null : (agent.sealedSigningSecret ?? context.box.seal(newSigningSecret()));
        await store.agents.setCallback(agent.agentId, callbackUrl, sealed);
        // Setting a URL, even the same one, is the agent saying its endpoint works: a disabled one is enabled again.
        await store.callbacks.enable(agent.agentId);
        actor.state = { ...agent, callbackUrl, sealedSigningSecret: sealed, updatedAt: clock.now().toISOString() };
        return { success: true as const, agentId: agent.agentId, callbackUrl, sealedSigningSecret: sealed };
      },
    }),

    defineOperation(AGENT_OPERATIONS.takeWaiting, {
      needs: ['db', 'deadLetters'],
      async handle({ actor, store }, payload) {
        const agent = requireAgent(actor);
        const messages = await store.db.transaction((tx) => store.deadLetters.take(tx, agent.agentId, payload.channel, payload.limit));
        return { messages, count: messages.length };
      },
    }),

    defineOperation(AGENT_OPERATIONS.channelStatus, {
      needs: ['messages', 'calls'],
      async handle({ actor, store }) {
        const agent = requireAgent(actor);
        // The voice channel's traffic is its calls (both directions); what a call leaves in messages is part of it.
        const counts = { ...(await store.messages.countByChannel(agent.agentId)), voice: await store.calls.countForAgent(agent.agentId) };
        const channels = Object.fromEntries(
          CHANNELS.map((channel): [Channel, ChannelStatus] => {
            const held = agent.channels.find((c) => c.channel === channel);
            const provider = context.drivers.for(channel)?.manifest.provider ?? null;
            if (!held) return [channel, { address: null, status: 'not_provisioned', provider, messageCount: 0 }];
            const status = agent.blockedChannels.includes(channel) ? 'blocked' : 'active';
            return [channel, { address: held.address, status, provider, messageCount: counts[channel] ?? 0 }];
          }),
        ) as Record<Channel, ChannelStatus>;
        return { agentId: agent.agentId, channels };
      },
    }),
  ];
}
