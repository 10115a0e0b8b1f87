import type { TSchema } from '@sinclair/typebox';
import { MAX_WAIT_SECONDS, WaitForReplyArguments } from '../schemas/reply.js';

/** A tool whose arguments differ from its REST twin's input: its own schema, and how its arguments become the route's. */
export interface ToolArguments {
  readonly schema: TSchema;
  readonly description: string;
  /** The route's input from the tool's (validated) arguments; `asTask` when the call is answered as a task. */
  toRoute(args: Record<string, unknown>, asTask: boolean): Record<string, unknown>;
}

/**
 * `comms_wait_for_reply` on `GET /api/v1/conversations/:conversationId/reply`: as a task the route
 * only looks once (the task then follows the inbox for up to `timeoutSeconds`); otherwise it waits
 * `timeoutSeconds`, at most 25 s.
 */
export const WAIT_FOR_REPLY: ToolArguments = {
  schema: WaitForReplyArguments,
  description: `Waits for the counterpart's reply in a conversation (an inbound message on any channel, or a voicemail) after a cursor, for up to timeoutSeconds (a day at most). A client that declares the Tasks extension gets a task that completes with the reply, or with timedOut: true at the deadline; any other client waits at most ${MAX_WAIT_SECONDS} s and gets the reply or a cursor to call again with (as after).`,
  toRoute(args, asTask) {
    const { timeoutSeconds, ...rest } = args as { timeoutSeconds: number };
    return { ...rest, wait: asTask ? 0 : Math.min(timeoutSeconds, MAX_WAIT_SECONDS) };
  },
};
