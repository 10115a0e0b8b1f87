import { ErrorCodes, SwitchboardError, type Channel } from '@switchboard/sdk';
import { defineOperation, type AgentOperation } from '../actors/operation.js';
import { requireAgent } from '../agents/operations.js';
import { AGENT_OPERATIONS } from '../protocol/operations.js';
import type { ActivityRow, TimelineCursor, TimelineRow } from '../store/repositories/conversations.js';
import type { Store } from '../store/store.js';
import { serviceWindowAt } from './service-window.js';

interface Counterpart {
  readonly channel: Channel;
  readonly address: string;
  readonly lastActivityAt: string;
}

interface Summary {
  readonly conversationId: string;
  readonly counterparts: Counterpart[];
  readonly lastActivityAt: string;
  readonly messages: number;
  readonly calls: number;
}

/** An opaque page cursor: what the next page starts after. */
function encode(value: TimelineCursor): string {
  return Buffer.from(JSON.stringify([value.createdAt, value.id])).toString('base64url');
}

function decode(cursor: string): TimelineCursor {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'string' && typeof id === 'string') return { createdAt, id };
  } catch {
    // answered below
  }
  throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'cursor is not one this API gave out; pass the nextCursor of the page before, or none.');
}

/** The agent's conversations from their activity rows: linked ids folded into the conversation they joined, newest first. */
function summaries(rows: readonly ActivityRow[], links: ReadonlyMap<string, string>): Summary[] {
  const byId = new Map<string, { counterparts: Map<string, Counterpart>; lastActivityAt: string; messages: number; calls: number }>();
  for (const row of rows) {
    const id = links.get(row.conversationId) ?? row.conversationId;
    const summary = byId.get(id) ?? { counterparts: new Map(), lastActivityAt: '', messages: 0, calls: 0 };
    const key = `${row.channel} ${row.counterpart}`;
    const seen = summary.counterparts.get(key);
    if (!seen || seen.lastActivityAt < row.lastAt) summary.counterparts.set(key, { channel: row.channel, address: row.counterpart, lastActivityAt: row.lastAt });
    if (summary.lastActivityAt < row.lastAt) summary.lastActivityAt = row.lastAt;
    summary.messages += row.messages;
    summary.calls += row.calls;
    byId.set(id, summary);
  }
  return [...byId]
    .map(([conversationId, s]) => ({ conversationId, ...s, counterparts: [...s.counterparts.values()].sort((a, b) => (a.lastActivityAt < b.lastActivityAt ? 1 : -1)) }))
    .sort((a, b) => (a.lastActivityAt === b.lastActivityAt ? (a.conversationId < b.conversationId ? 1 : -1) : a.lastActivityAt < b.lastActivityAt ? 1 : -1));
}

/** A timeline row as the API answers it: a call's transcript parsed. */
function item(row: TimelineRow) {
  if (row.kind === 'message') return row;
  const { transcript, ...call } = row;
  return { ...call, transcript: transcript === null ? [] : (JSON.parse(transcript) as { role: string; text: string; at: string }[]) };
}

/** What a conversation is made of now: the conversation an id was linked into, and its member ids. */
async function membersOf(store: Pick<Store, 'conversations'>, agentId: string, conversationId: string) {
  const id = await store.conversations.resolve(agentId, conversationId);
  return { id, members: await store.conversations.members(agentId, id) };
}

/**
 * Conversation operations every agent actor answers: the list and a timeline only read (their entries
 * keep them out of the mailbox); linking runs in the mailbox, so an agent's links apply one at a time.
 */
export function conversationOperations(): AgentOperation[] {
  return [
    defineOperation(AGENT_OPERATIONS.conversations, {
      needs: ['conversations'],
      async handle({ actor, store }, request) {
        const { agentId } = requireAgent(actor);
        const after = request.cursor === undefined ? undefined : decode(request.cursor);
        const recent = await store.conversations.recent(agentId, request.limit + 1, after);
        const page = recent.slice(0, request.limit);
        if (page.length === 0) return { agentId, conversations: [], nextCursor: null };
        const ids = page.map((c) => c.conversationId);
        const links = await store.conversations.linksInto(agentId, ids);
        const byId = new Map(summaries(await store.conversations.activity(agentId, [...ids, ...links.keys()]), links).map((s) => [s.conversationId, s]));
        // The order and the cursor are the summaries' (the page's keyset); the counts and counterparts the rows'.
        const conversations = page.map(({ conversationId, lastAt }) => {
          const summary = byId.get(conversationId);
          return { conversationId, counterparts: summary?.counterparts ?? [], lastActivityAt: lastAt, messages: summary?.messages ?? 0, calls: summary?.calls ?? 0 };
        });
        const last = page.at(-1);
        return { agentId, conversations, nextCursor: recent.length > request.limit && last ? encode({ createdAt: last.lastAt, id: last.conversationId }) : null };
      },
    }),

    defineOperation(AGENT_OPERATIONS.conversation, {
      needs: ['conversations'],
      async handle({ actor, store, clock }, request) {
        const { agentId } = requireAgent(actor);
        const { id, members } = await membersOf(store, agentId, request.conversationId);
        const before = request.cursor === undefined ? undefined : decode(request.cursor);
        const rows = await store.conversations.timeline(agentId, members, request.limit + 1, before);
        const linkedAddresses = await store.conversations.linkedAddresses(agentId, id);
        if (rows.length === 0 && before === undefined && linkedAddresses.length === 0) {
          throw new SwitchboardError(ErrorCodes.NOT_FOUND, `No conversation ${request.conversationId} for agent ${agentId}.`);
        }
        const page = rows.slice(0, request.limit);
        const last = page.at(-1);
        const counterparts = summaries(await store.conversations.activity(agentId, members), new Map(members.map((m) => [m, id])))[0]?.counterparts ?? [];
        // The window of its newest WhatsApp message from the counterpart, for a conversation on WhatsApp.
        const onWhatsApp = counterparts.some((c) => c.channel === 'whatsapp');
        const serviceWindow = onWhatsApp ? serviceWindowAt(await store.conversations.lastInboundAt(agentId, members, 'whatsapp'), clock.now()) : null;
        return {
          agentId,
          conversationId: id,
          counterparts,
          linkedAddresses,
          serviceWindow,
          items: page.map(item),
          nextCursor: rows.length > request.limit && last ? encode(last) : null,
        };
      },
    }),

    defineOperation(AGENT_OPERATIONS.linkContacts, {
      needs: ['conversations'],
      async handle({ actor, store, clock }, request) {
        const { agentId } = requireAgent(actor);
        const [into, ...others] = request.addresses;
        const conversationId = await store.conversations.link(agentId, into!, others, clock.now().toISOString());
        return { agentId, conversationId, linkedAddresses: await store.conversations.linkedAddresses(agentId, conversationId) };
      },
    }),
  ];
}
