import { Type, type Static } from '@sinclair/typebox';
import { Agent, Channel, ConsentKind, Nullable, entries } from './shapes.js';

/** What an agent records of the people it contacts: their consents, and their wish not to be contacted. */

/** A person as the agent names them, and the channel that names them so (`whatsapp:+1…`, an email address). */
const Person = { contact: Type.String({ minLength: 1 }), channel: Type.Optional(Channel) };

/** A consent record (store/repositories/consents.ts). */
const ConsentSchema = Type.Object({
  contact: Type.String(),
  /** `*`: given to the operator, every agent; else this agent's id. */
  scope: Type.String(),
  kind: ConsentKind,
  source: Type.String(),
  evidence: Nullable(Type.String()),
  recordedAt: Type.String(),
  revokedAt: Nullable(Type.String()),
});

const RecordConsentSchema = Type.Object({
  ...Agent,
  ...Person,
  kind: ConsentKind,
  source: Type.String({ minLength: 1 }),
  evidence: Type.Optional(Type.String()),
  /** When the person gave it; absent: now. */
  givenAt: Type.Optional(Type.String()),
});

const RevokeConsentSchema = Type.Object({ ...Agent, ...Person, kind: Type.Optional(ConsentKind), reason: Type.Optional(Type.String()) });

const CheckConsentSchema = Type.Object({ ...Agent, ...Person, kind: Type.Optional(ConsentKind) });

const ConsentCheckSchema = Type.Object({
  agentId: Type.String(),
  contact: Type.String(),
  /** Per kind asked (every kind when none was named): a live consent lets this agent contact them. */
  consented: Type.Record(Type.String(), Type.Boolean()),
  /** The kinds this agent must find on record before contacting anyone. */
  required: Type.Array(ConsentKind),
  /** Every record for them this agent sees (its own and the operator's), live and revoked. */
  consents: Type.Array(ConsentSchema),
});

export const COMPLIANCE_ENTRIES = entries({
  recordConsent: {
    request: RecordConsentSchema,
    answer: Type.Object({ success: Type.Literal(true), agentId: Type.String(), consent: ConsentSchema }),
    mailbox: true,
    tenure: false,
  },
  revokeConsent: {
    request: RevokeConsentSchema,
    answer: Type.Object({ success: Type.Literal(true), agentId: Type.String(), contact: Type.String(), revoked: Type.Array(ConsentKind) }),
    mailbox: true,
    tenure: false,
  },
  checkConsent: { request: CheckConsentSchema, answer: ConsentCheckSchema, mailbox: false, tenure: false },
  doNotContact: {
    request: Type.Object({ ...Agent, ...Person, reason: Type.Optional(Type.String()) }),
    answer: Type.Object({ success: Type.Literal(true), agentId: Type.String(), contact: Type.String(), scope: Type.String(), changed: Type.Boolean() }),
    mailbox: true,
    tenure: false,
  },
  /**
   * The operator's contact settings of an agent: the consent kinds it must find on record, and whether
   * its emails carry one-click unsubscribe headers; an absent field is left as it is.
   */
  setContactSettings: {
    request: Type.Object({
      ...Agent,
      requireConsent: Type.Optional(Type.Array(ConsentKind)),
      listUnsubscribe: Type.Optional(Type.Boolean()),
      /** Calling hours waived with the operator's reason; null lifts the waiver; absent: unchanged. */
      callingHoursOverride: Type.Optional(Type.Union([Type.Object({ reason: Type.String() }), Type.Null()])),
    }),
    answer: Type.Object({
      ok: Type.Literal(true),
      agentId: Type.String(),
      requireConsent: Type.Array(ConsentKind),
      listUnsubscribe: Type.Boolean(),
      callingHoursOverride: Type.Union([Type.Object({ reason: Type.String(), setAt: Type.String() }), Type.Null()]),
    }),
    mailbox: true,
    tenure: false,
    changesAgent: true,
  },
  /**
   * A recipient's one-click unsubscribe link (RFC 8058), checked against the agent's key: NOT_FOUND when
   * it is not one of this agent's; with `apply` the address goes on the agent's do-not-contact list.
   */
  unsubscribe: {
    request: Type.Object({ ...Agent, token: Type.String({ minLength: 1, maxLength: 2048 }), apply: Type.Boolean() }),
    answer: Type.Object({ ok: Type.Literal(true), agentId: Type.String(), changed: Type.Boolean() }),
    mailbox: true,
    tenure: false,
  },
});

export type ConsentView = Static<typeof ConsentSchema>;
