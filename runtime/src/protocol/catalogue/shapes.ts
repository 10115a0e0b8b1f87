import { Type, type TObject, type TOptional, type TSchema } from '@sinclair/typebox';
import { CHANNELS } from '@switchboard/sdk';

/**
 * One agent operation's entry in the catalogue: its name, the request it takes and the answer it
 * gives, and how a node must run it. Requests carry the agent's id besides their own fields; fields a
 * schema does not name are allowed and ignored.
 */
export interface OperationEntry<N extends string = string, Q extends TSchema = TSchema, A extends TSchema = TSchema> {
  readonly name: N;
  readonly request: Q;
  readonly answer: A;
  /**
   * True: it runs in the agent's mailbox, one at a time and in arrival order with the agent's other
   * such operations (what changes the agent, or must see every change before it). False: it only
   * reads, or its order does not matter; it runs after a mailbox turn that loads the agent.
   */
  readonly mailbox: boolean;
  /**
   * True: what it does after the turn's start (writes, provider calls) is fenced by the node's tenure
   * of the agent's partition, which its handler is given. Every turn asserts the tenure as it starts.
   */
  readonly tenure: boolean;
  /** True: it changes the agent's record, which a process keeping records (the edge's, agents/recent-agents.ts) must read again. */
  readonly changesAgent?: true;
}

/** Entries keyed by their names, each stamped with its key. */
export function entries<const E extends Record<string, Omit<OperationEntry, 'name'>>>(shapes: E): { readonly [K in keyof E & string]: E[K] & { readonly name: K } } {
  return Object.fromEntries(Object.entries(shapes).map(([name, shape]) => [name, { name, ...shape }])) as { [K in keyof E & string]: E[K] & { name: K } };
}

export const Channel = Type.Union(CHANNELS.map((c) => Type.Literal(c)));
/** What a person agreed to (store/repositories/consents.ts `ConsentKind`). */
export const CONSENT_KINDS = ['transactional', 'marketing', 'automated-call'] as const;
export const ConsentKind = Type.Union(CONSENT_KINDS.map((k) => Type.Literal(k)));
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** An object keyed by channel: each channel's entry optional, or required when `every` is set. */
export function perChannel<T extends TSchema>(value: T): TObject<{ [C in (typeof CHANNELS)[number]]: TOptional<T> }>;
export function perChannel<T extends TSchema>(value: T, every: 'every'): TObject<{ [C in (typeof CHANNELS)[number]]: T }>;
export function perChannel<T extends TSchema>(value: T, every?: 'every'): TSchema {
  return Type.Object(Object.fromEntries(CHANNELS.map((c) => [c, every ? value : Type.Optional(value)])));
}

export const Agent = { agentId: Type.String({ minLength: 1 }) };
export const AgentOnly = Type.Object(Agent);
export const Ok = Type.Object({ success: Type.Literal(true) });
export const Page = { limit: Type.Integer({ minimum: 1 }), cursor: Type.Optional(Type.String()) };

/** A provider webhook, signature already checked by the gateway: the raw body travels base64-encoded. */
const Webhook = {
  method: Type.String(),
  url: Type.String(),
  headers: Type.Record(Type.String(), Type.String()),
  rawBodyBase64: Type.String(),
};

/** What the gateway answers a provider's webhook with. */
export const WebhookAnswerSchema = Type.Object({
  status: Type.Integer(),
  contentType: Type.String(),
  body: Type.String(),
  /** Extra response headers (the refusal of a permanently bad event asks the sender to stop retrying). */
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
});

/** `provider`: which of the channel's providers signed it (a channel may have several); the channel's own when absent. */
export const InboundWebhookSchema = Type.Object({ ...Webhook, channel: Channel, provider: Type.Optional(Type.String()) });
export const VoiceWebhookSchema = Type.Object(Webhook);

/** What the reconciliation of a message or a call answers. */
export const ReconcileResponseSchema = Type.Object({
  /**
   * `settled`: it had a final status already; `final`: the provider's answer was one; `pending`: the
   * provider had none yet (asked again later); `unknown`: recorded at the bound.
   */
  outcome: Type.Union([Type.Literal('settled'), Type.Literal('final'), Type.Literal('pending'), Type.Literal('unknown')]),
  status: Type.String(),
});
