import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { InboxEntry, InboxEntryType, InboxRepository } from '../store/repositories/inbox.js';

/**
 * What counts as the counterpart's reply in a conversation: a message from them on any channel, or a
 * voicemail they left. A call's status and transcript do not: the agent was on the call itself.
 */
export const REPLY_TYPES: readonly InboxEntryType[] = ['message.received', 'voicemail'];

/** A look for a reply: the first one after the cursor, or none and the cursor to look after next time. */
export interface ReplyCheck {
  readonly reply: InboxEntry | null;
  /** The reply's cursor; without one, the last cursor looked at (every entry up to it is not a reply). */
  readonly cursor: number;
}

/** Where a wait for a reply starts: the cursor it waits after. */
export interface ReplyStart {
  readonly after: number;
}

/**
 * Reads for waiting on a reply, straight from the store (reads only, like the call log), so any
 * gateway answers and a wait re-reads cheaply on each inbox hint.
 */
export class ReplyReads {
  constructor(private readonly inbox: Pick<InboxRepository, 'position' | 'firstOf' | 'conversationMarks'>) {}

  /**
   * The cursor a wait starts after: `after` when given (never past the inbox's last cursor), else the
   * later of the agent's acknowledged cursor and its latest send in the conversation, so "wait for a
   * reply" right after a send finds a reply that came in between, and never one the agent already handled.
   * NOT_FOUND when the agent's inbox has no entry in the conversation (unknown, or another agent's).
   */
  async start(agentId: string, conversationId: string, after: number | undefined): Promise<ReplyStart> {
    const [{ lastCursor, ackedCursor }, marks] = await Promise.all([this.inbox.position(agentId), this.inbox.conversationMarks(agentId, conversationId)]);
    if (marks.lastCursor === 0) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `No conversation ${conversationId} in the inbox of ${agentId}.`);
    if (after !== undefined && after > lastCursor) {
      throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `after: ${after} is past the last cursor of this inbox (${lastCursor}).`);
    }
    return { after: after ?? Math.max(ackedCursor, marks.lastSendCursor) };
  }

  /**
   * The first reply after `after`. The inbox's last cursor is read first: cursors of one agent commit
   * in order, so with no reply found, no reply is at or below it and it is a safe place to look after next.
   */
  async check(agentId: string, conversationId: string, after: number): Promise<ReplyCheck> {
    const { lastCursor } = await this.inbox.position(agentId);
    const reply = await this.inbox.firstOf(agentId, conversationId, after, REPLY_TYPES);
    return reply ? { reply, cursor: reply.cursor } : { reply: null, cursor: Math.max(after, lastCursor) };
  }
}
