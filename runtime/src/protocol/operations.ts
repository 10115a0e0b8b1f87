import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { AGENT_ENTRIES } from './catalogue/agents.js';
import { COMPLIANCE_ENTRIES } from './catalogue/compliance.js';
import { MESSAGING_ENTRIES } from './catalogue/messaging.js';
import { RECORD_ENTRIES } from './catalogue/records.js';
import type { InboundWebhookSchema, OperationEntry, VoiceWebhookSchema, WebhookAnswerSchema } from './catalogue/shapes.js';
import { VOICE_ENTRIES } from './catalogue/voice.js';

/**
 * Every agent operation that crosses the bus: its name, the request it takes and the answer it gives,
 * and whether it runs in the agent's mailbox and under a tenure (catalogue/, one file a domain). The
 * runtime checks each request against it before the operation runs, and the caller checks each
 * answer, so a process on the other side of NATS (another build, a rogue publisher) cannot hand an
 * actor a shape it does not expect. The gateway validates HTTP bodies against the contract's own
 * schemas first; these are the internal shapes behind them. Handlers live with their domains
 * (actors/operation.ts `defineOperation`), never here: the gateway loads this file without them.
 */
export const AGENT_OPERATIONS = { ...AGENT_ENTRIES, ...MESSAGING_ENTRIES, ...VOICE_ENTRIES, ...RECORD_ENTRIES, ...COMPLIANCE_ENTRIES };

export type { OperationEntry } from './catalogue/shapes.js';
export { INBOX_ENTRY_TYPES, type InboxRead } from './catalogue/records.js';
export { LIMIT_NAMES, type AgentView, type CallbackUrlResult, type ChannelStatus, type DeprovisionResult, type ProvisionRequest, type ProvisionResult } from './catalogue/agents.js';
export type { ResumeSendRequest, SendRequest, SendResponse } from './catalogue/messaging.js';
export type { CallLine, CallPurpose, MakeCallRequest } from './catalogue/voice.js';

/** The name of an agent operation. */
export type OperationName = keyof typeof AGENT_OPERATIONS;
/** What operation `K` takes, with the agent's id. */
export type OperationRequest<K extends OperationName> = Static<(typeof AGENT_OPERATIONS)[K]['request']>;
/** What operation `K` takes, without the agent's id (the client adds it). */
export type OperationInput<K extends OperationName> = Omit<OperationRequest<K>, 'agentId'>;
/** What operation `K` answers. */
export type OperationResponse<K extends OperationName> = Static<(typeof AGENT_OPERATIONS)[K]['answer']>;

export type InboundWebhook = Static<typeof InboundWebhookSchema>;
export type VoiceWebhook = Static<typeof VoiceWebhookSchema>;
export type WebhookAnswer = Static<typeof WebhookAnswerSchema>;

// Requests and answers are checked as they are, never coerced or stripped: the shapes are internal.
const ajv = new Ajv({ strict: false, allErrors: false });
const compiled = new WeakMap<OperationEntry, { request: ValidateFunction; answer: ValidateFunction }>();

function checksOf(entry: OperationEntry) {
  let checks = compiled.get(entry);
  if (!checks) {
    checks = { request: ajv.compile(entry.request), answer: ajv.compile(entry.answer) };
    compiled.set(entry, checks);
  }
  return checks;
}

/** True when `name` is an operation of the catalogue. */
export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(AGENT_OPERATIONS, name);
}

/** The request as `entry` takes it, or BAD_REQUEST naming what is wrong (it was not acted on). */
export function requestOf<Q extends TSchema>(entry: OperationEntry<string, Q>, payload: unknown): Static<Q> {
  const validate = checksOf(entry).request;
  if (validate(payload)) return payload as Static<Q>;
  throw new SwitchboardError(ErrorCodes.BAD_REQUEST, `Agent operation ${entry.name} refused its request: ${ajv.errorsText(validate.errors, { dataVar: 'request' })}.`);
}

/** The answer as `entry` gives it, or INTERNAL: the node that answered does not speak this catalogue. */
export function answerOf<A extends TSchema>(entry: OperationEntry<string, TSchema, A>, answer: unknown): Static<A> {
  const validate = checksOf(entry).answer;
  if (validate(answer)) return answer as Static<A>;
  throw new SwitchboardError(ErrorCodes.INTERNAL, `Agent operation ${entry.name} answered an unexpected shape: ${ajv.errorsText(validate.errors, { dataVar: 'answer' })}.`);
}

/** The request as operation `name` takes it, or BAD_REQUEST naming what is wrong (it was not acted on). */
export function checkRequest<K extends OperationName>(name: K, payload: unknown): OperationRequest<K> {
  return requestOf(AGENT_OPERATIONS[name] as OperationEntry, payload) as OperationRequest<K>;
}

/** The answer as operation `name` gives it, or INTERNAL: the node that answered does not speak this catalogue. */
export function checkResponse<K extends OperationName>(name: K, answer: unknown): OperationResponse<K> {
  return answerOf(AGENT_OPERATIONS[name] as OperationEntry, answer) as OperationResponse<K>;
}
