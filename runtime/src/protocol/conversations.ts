import { createHash } from 'node:crypto';

/**
 * An address as conversations compare it: trimmed, lower-cased, without the `whatsapp:` prefix, so
 * SMS, WhatsApp and voice from one number are one counterpart.
 */
export function normaliseAddress(address: string): string {
  return address.trim().replace(/^whatsapp:/i, '').toLowerCase();
}

/**
 * The conversation of an agent with one counterpart address: a stable id derived from both, the same
 * in every process and every run. An agent may link another address into it (contact_links).
 */
export function conversationIdOf(agentId: string, address: string): string {
  const digest = createHash('sha256').update(`${agentId}\0${normaliseAddress(address)}`).digest('base64url');
  return `cnv_${digest.slice(0, 22)}`;
}

/** The other party of a message or call: the sender of an inbound one, the recipient of an outbound one. */
export function counterpartOf(record: { readonly direction: 'inbound' | 'outbound'; readonly from: string; readonly to: string }): string {
  return record.direction === 'inbound' ? record.from : record.to;
}

/**
 * SQL that holds for a row whose `conversation_id` belongs to the agent's conversation `conversationId`
 * as it is now: the conversation that id was linked into (else itself), and every address id linked
 * into that one (contact_links). For reads by conversation on tables that carry the address's own id.
 */
export function inConversation(agentId: string, conversationId: string): { sql: string; params: string[] } {
  const target = 'COALESCE((SELECT l.conversation_id FROM contact_links l WHERE l.agent_id = ? AND l.address_conversation_id = ?), ?)';
  return {
    sql: `conversation_id IN (SELECT ${target} UNION SELECT m.address_conversation_id FROM contact_links m WHERE m.agent_id = ? AND m.conversation_id = ${target})`,
    params: [agentId, conversationId, conversationId, agentId, agentId, conversationId, conversationId],
  };
}
