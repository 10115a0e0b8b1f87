import type { SqlExecutor } from '../database.js';

/**
 * What an agent said, heard and was told, as one thing to erase at deprovisioning: its messages, calls
 * (with their ledgers and transcripts), dead letters, refused contacts, conversations (summaries and contact links), tasks
 * and the idempotent answers its token was given. An agent provisioned later under the same id starts
 * empty. Usage records stay (billing keeps them; they hold counts and costs, no content).
 */
export class AgentContentRepository {
  /**
   * Deletes the agent's content inside the deprovisioning's transaction; returns the file names of its
   * call recordings, to be removed once the transaction commits.
   */
  async erase(tx: SqlExecutor, agentId: string): Promise<string[]> {
    const recordings = await tx.query<{ recording_file: string }>('SELECT recording_file FROM calls WHERE agent_id = ? AND recording_file IS NOT NULL', [agentId]);
    // Links and summaries first: the per-row trigger on deleting a message then has no summary to redo.
    await tx.execute('DELETE FROM contact_links WHERE agent_id = ?', [agentId]);
    await tx.execute('DELETE FROM conversation_summaries WHERE agent_id = ?', [agentId]);
    // A client token's answers are scoped `client:<agentId>:…`; a team's answer to a send names its message.
    const scope = `client:${agentId}:`;
    await tx.execute('DELETE FROM idempotency_keys WHERE substr(scope, 1, ?) = ? OR message_id IN (SELECT id FROM messages WHERE agent_id = ?)', [
      scope.length,
      scope,
      agentId,
    ]);
    for (const table of ['dead_letters', 'messages', 'calls', 'tasks', 'contact_refusals']) await tx.execute(`DELETE FROM ${table} WHERE agent_id = ?`, [agentId]);
    await tx.execute('DELETE FROM conversation_summaries WHERE agent_id = ?', [agentId]);
    return recordings.map((r) => r.recording_file);
  }
}
