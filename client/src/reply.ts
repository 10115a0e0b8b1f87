import type { Client } from 'openapi-fetch';
import { unwrap } from './errors.js';
import type { paths } from './schema.js';
import type { ReplyAnswer } from './types.js';

/** The longest one request waits on the server (its `wait` maximum); longer waits are several requests. */
const MAX_WAIT_SECONDS = 25;

/** What `client.waitForReply()` waits for. */
export interface WaitForReplyOptions {
  /** The agent (a client token's own agent when absent). */
  agentId?: string;
  /** Wait for a reply after this cursor; absent: after the agent's latest send in the conversation (or its acknowledged cursor, if later). */
  after?: number;
  /** How long to wait in all, in ms (default 25 000); 0 asks once without waiting. */
  timeoutMs?: number;
  /** Stops waiting: the pending request is aborted and the promise rejects. */
  signal?: AbortSignal;
}

/**
 * The counterpart's first reply in a conversation after a cursor (an inbound message or a voicemail), over
 * the REST long poll: one request per 25 s at most, each after the cursor the previous one answered, until a
 * reply comes or `timeoutMs` is over (then the answer has `reply: null`, `timedOut: true` and the cursor to wait after).
 */
export async function waitForReply(api: Client<paths>, conversationId: string, options: WaitForReplyOptions = {}): Promise<ReplyAnswer> {
  const deadline = Date.now() + (options.timeoutMs ?? MAX_WAIT_SECONDS * 1000);
  let after = options.after;
  for (;;) {
    const wait = Math.min(MAX_WAIT_SECONDS, Math.max(0, Math.ceil((deadline - Date.now()) / 1000)));
    const query = { ...(options.agentId !== undefined ? { agentId: options.agentId } : {}), ...(after !== undefined ? { after } : {}), wait };
    const answer = unwrap(
      await api.GET('/api/v1/conversations/{conversationId}/reply', { params: { path: { conversationId }, query }, ...(options.signal ? { signal: options.signal } : {}) }),
    );
    if (answer.reply !== null || Date.now() >= deadline - 500) return answer;
    after = answer.cursor;
  }
}
