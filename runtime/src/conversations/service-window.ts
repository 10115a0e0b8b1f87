import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { conversationIdOf } from '../protocol/conversations.js';
import type { Store } from '../store/store.js';

/** WhatsApp's customer service window: free-form messages are allowed for 24 hours after the person's last message. */
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The WhatsApp service window of a conversation, as the agent reads it. */
export interface ServiceWindow {
  readonly channel: 'whatsapp';
  /** Whether a free-form message may go out now; outside it only an approved template may. */
  readonly open: boolean;
  /** When it closes, or closed; null when the person never wrote on WhatsApp. */
  readonly closesAt: string | null;
  /** The person's last WhatsApp message, which opened it. */
  readonly lastInboundAt: string | null;
}

/** When the window a message received at `receivedAt` opened closes. */
export function windowClosesAt(receivedAt: string): string {
  return new Date(Date.parse(receivedAt) + SERVICE_WINDOW_MS).toISOString();
}

/** The window at `now`, from the person's last WhatsApp message (none: never opened). */
export function serviceWindowAt(lastInboundAt: string | undefined, now: Date): ServiceWindow {
  if (lastInboundAt === undefined) return { channel: 'whatsapp', open: false, closesAt: null, lastInboundAt: null };
  const closesAt = windowClosesAt(lastInboundAt);
  return { channel: 'whatsapp', open: now.getTime() < Date.parse(closesAt), closesAt, lastInboundAt };
}

/**
 * Throws WHATSAPP_WINDOW_CLOSED unless `to` wrote to the agent on WhatsApp within the last 24 hours
 * (by the store, so any node that holds the agent decides the same): a free-form message outside
 * the window would fail at the provider (Twilio 63016, Meta 131047); only a template may go.
 */
export async function requireOpenWindow(store: Pick<Store, 'conversations'>, agentId: string, to: string, now: Date): Promise<void> {
  const last = await store.conversations.lastInboundAt(agentId, [conversationIdOf(agentId, to)], 'whatsapp', to);
  const window = serviceWindowAt(last, now);
  if (window.open) return;
  const instead = 'send an approved template instead (`template: {contentSid or name, variables}`; GET /api/v1/whatsapp/templates lists them)';
  throw new SwitchboardError(
    ErrorCodes.WHATSAPP_WINDOW_CLOSED,
    window.closesAt
      ? `The WhatsApp 24-hour customer service window with ${to} closed at ${window.closesAt}, 24 hours after their last message: ${instead}, or wait until they write again.`
      : `${to} has never written to this agent on WhatsApp, so no 24-hour customer service window is open: ${instead}.`,
    { details: [{ to, ...window }] },
  );
}
