import { Type, type Static } from '@sinclair/typebox';
import { AgentId } from './common.js';
import { ConversationId, cursor, InboxEntry } from './inbox.js';

/** The longest a request waits for a reply before answering (tool calls and proxies cut at 25–60 s). */
export const MAX_WAIT_SECONDS = 25;

/** The longest a wait for a reply may last as a task (`comms_wait_for_reply` with the Tasks extension). */
export const MAX_TIMEOUT_SECONDS = 86_400;

const after = () =>
  Type.Optional(
    cursor(
      "Wait for a reply after this cursor (the `cursor` of the previous answer, to wait again). Absent: after the later of the agent's acknowledged cursor and its latest send in the conversation.",
    ),
  );

export const ReplyQuery = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    after: after(),
    wait: Type.Integer({ minimum: 0, maximum: MAX_WAIT_SECONDS, default: 0, description: `Seconds to wait for a reply when none is there yet (0 to ${MAX_WAIT_SECONDS}); 0 answers at once.` }),
  },
  { additionalProperties: false },
);
export type ReplyQuery = Static<typeof ReplyQuery>;

export const ReplyResponse = Type.Object({
  agentId: AgentId,
  conversationId: ConversationId,
  after: cursor('The cursor this wait looked after.'),
  reply: Type.Union([InboxEntry, Type.Null()], { description: 'The first reply after `after` (an inbound message on any channel, or a voicemail); null when none came in time.' }),
  cursor: cursor("The reply's cursor; without a reply, pass it as `after` to wait again."),
  timedOut: Type.Boolean({ description: 'True when no reply came in time.' }),
});

/** The arguments of `comms_wait_for_reply`: a wait of up to a day, as a task or (without tasks) a bounded long poll. */
export const WaitForReplyArguments = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    conversationId: ConversationId,
    after: after(),
    timeoutSeconds: Type.Integer({
      minimum: 0,
      maximum: MAX_TIMEOUT_SECONDS,
      description: `How long to wait for a reply, up to ${MAX_TIMEOUT_SECONDS} s (a day). A client that declares the Tasks extension gets a task for the whole time; any other waits at most ${MAX_WAIT_SECONDS} s and gets a cursor to call again with.`,
    }),
  },
  { additionalProperties: false },
);
export type WaitForReplyArguments = Static<typeof WaitForReplyArguments>;
