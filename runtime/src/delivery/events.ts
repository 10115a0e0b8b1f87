import type { Channel } from '@switchboard/sdk';
import { newId } from '../ids.js';
import type { AgentEvent } from '../protocol/live.js';
import type { MessageRecord } from '../store/repositories/messages.js';

/** The event's shape lives with the wire it crosses (protocol/live.ts). */
export type { AgentEvent };

/** The contract's InboundEvent: a message a person sent the agent. */
export interface InboundMessageData {
  readonly messageId: string;
  readonly channel: Channel;
  readonly from: string;
  readonly to: string;
  readonly subject?: string;
  readonly body: string;
  readonly html?: string;
  readonly mediaUrls: readonly string[];
  readonly externalId: string | null;
  readonly receivedAt: string;
}

/** A delivery receipt for a message the agent sent. */
export interface MessageStatusData {
  readonly messageId: string;
  readonly channel: Channel;
  readonly externalId: string;
  readonly status: string;
  readonly cost: number | null;
  readonly errorCode?: string;
  /** Why the status is `unknown`: no final status came from the provider within the bound. */
  readonly reason?: string;
}

/** An event with a new id, or with `id` when a redelivery must carry the same one. */
export function agentEvent<T>(type: AgentEvent['type'], agentId: string, data: T, id: string = newId('evt')): AgentEvent<T> {
  return { id, type, agentId, createdAt: new Date().toISOString(), data };
}

/**
 * The event id of a stored message's delivery, the same on every attempt: delivery is at least once
 * (a node killed after the agent took an event and before recording it hands it to another node), and
 * the Standard Webhooks `webhook-id` lets the agent drop the repeat.
 */
export function deliveryEventId(messageId: string): string {
  return `evt_${messageId.replace(/^msg_/, '')}`;
}

export function inboundData(message: MessageRecord): InboundMessageData {
  return {
    messageId: message.id,
    channel: message.channel,
    from: message.from,
    to: message.to,
    ...(message.subject === null ? {} : { subject: message.subject }),
    body: message.body,
    ...(message.html === null ? {} : { html: message.html }),
    mediaUrls: message.mediaUrls,
    externalId: message.externalId,
    receivedAt: message.createdAt,
  };
}
