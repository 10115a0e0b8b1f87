import type { operations } from './schema.js';

/** The JSON body an operation takes. */
export type RequestBody<Id extends keyof operations> = operations[Id] extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never;
/** The JSON body of an operation's 2xx answer. */
export type ResponseBody<Id extends keyof operations, Status extends number = 200> = operations[Id]['responses'] extends Record<Status, { content: { 'application/json': infer Body } }> ? Body : never;

/** `POST /api/v1/send-message`'s body. */
export type SendMessageBody = RequestBody<'sendMessage'>;
/** `POST /api/v1/send-message`'s answer. */
export type SendMessageResult = ResponseBody<'sendMessage'>;
/** A page of `GET /api/v1/inbox`. */
export type InboxPage = ResponseBody<'readInbox'>;
/** One entry of the agent's inbox: an inbound message, an outbound status change, a call's status or transcript, a voicemail. */
export type InboxEntry = InboxPage['entries'][number];
/** The answer of `GET /api/v1/conversations/{conversationId}/reply`. */
export type ReplyAnswer = ResponseBody<'waitForReply'>;
