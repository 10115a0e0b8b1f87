import { ErrorCodes, SwitchboardError, type Channel } from '@switchboard/sdk';
import type { Store } from '../store/store.js';

/** Where a send goes: its channel, its recipient, and for email the subject. */
export interface Addressed {
  readonly channel: Exclude<Channel, 'voice'>;
  readonly to: string;
  readonly subject: string | undefined;
  /** An email reply's place in its thread: the Message-ID it answers, and the thread's, oldest first. */
  readonly thread: { readonly inReplyTo: string; readonly references: readonly string[] } | undefined;
}

/** Which addresses a channel sends to: phone numbers for SMS and WhatsApp, email addresses, LINE user ids. */
const ADDRESS_OF: Record<Exclude<Channel, 'voice'>, RegExp> = {
  sms: /^(whatsapp:)?\+\d{6,15}$/i,
  whatsapp: /^(whatsapp:)?\+\d{6,15}$/i,
  email: /@/,
  line: /^U[0-9a-f]{32}$/i,
};

/** "Re: " before a subject, once. */
function reply(subject: string | null | undefined): string | undefined {
  if (!subject) return undefined;
  return /^re:/i.test(subject) ? subject : `Re: ${subject}`;
}

/**
 * The recipient of a send that names a conversation instead of `to`: the counterpart of the
 * conversation's latest message on `channel`, or on the channel it last used when `channel` is absent;
 * with no message on that channel, an address of the conversation that channel can reach (the number
 * of a call, an address the agent linked in). An email reply takes the last email's subject ("Re: …")
 * when the send names none.
 */
export async function replyTarget(store: Pick<Store, 'conversations'>, agentId: string, conversationId: string, channel: Exclude<Channel, 'voice'> | undefined, subject: string | undefined): Promise<Addressed> {
  const id = await store.conversations.resolve(agentId, conversationId);
  const members = await store.conversations.members(agentId, id);
  const last = await store.conversations.lastMessage(agentId, members, channel);
  if (last) {
    if (last.channel !== 'email') return { channel: last.channel, to: last.counterpart, subject, thread: undefined };
    const [lastSubject, ids] = await Promise.all([store.conversations.lastSubject(agentId, members), store.conversations.emailMessageIds(agentId, members)]);
    const thread = ids.length > 0 ? { inReplyTo: ids.at(-1)!, references: ids } : undefined;
    return { channel: 'email', to: last.counterpart, subject: subject ?? reply(lastSubject), thread };
  }
  const addresses = [...(await store.conversations.activity(agentId, members)).map((a) => a.counterpart), ...(await store.conversations.linkedAddresses(agentId, id))];
  if (addresses.length === 0) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `No conversation ${conversationId} for agent ${agentId}.`);
  const reachable = channel && addresses.find((address) => ADDRESS_OF[channel].test(address));
  if (!channel || !reachable) {
    throw new SwitchboardError(
      ErrorCodes.VALIDATION_FAILED,
      channel
        ? `Conversation ${conversationId} has no address the ${channel} channel reaches; name \`to\` instead, or link one with link-contacts.`
        : `Conversation ${conversationId} has no message yet; name the \`channel\` to reply on.`,
    );
  }
  return { channel, to: reachable.replace(/^whatsapp:/i, ''), subject, thread: undefined };
}
