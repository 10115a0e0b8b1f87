export { createClient, newIdempotencyKey } from './client.js';
export type { SendOptions, SwitchboardClient, SwitchboardClientOptions } from './client.js';
export { SwitchboardApiError, isSwitchboardError, isTransient, unwrap } from './errors.js';
export type { ErrorBody } from './errors.js';
export type { InboxOptions } from './inbox.js';
export type { WaitForReplyOptions } from './reply.js';
export type { InboxEntry, InboxPage, ReplyAnswer, RequestBody, ResponseBody, SendMessageBody, SendMessageResult } from './types.js';
export type { components, operations, paths } from './schema.js';
