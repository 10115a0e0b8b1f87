import { Type, type Static } from '@sinclair/typebox';
import { AgentId, ChannelName } from './common.js';

/** A person as the agent names them; the channel, when given, says how (`whatsapp:+1…`, an email address, a LINE user id). */
const Contact = Type.String({
  minLength: 3,
  maxLength: 320,
  pattern: '\\S',
  description: 'The person: an E.164 number (`whatsapp:` allowed), an email address or a LINE user id. A consent or an opt-out is the person\'s on every channel.',
});
const ContactChannel = Type.Optional(ChannelName);

export const ConsentKindName = Type.Union([Type.Literal('transactional'), Type.Literal('marketing'), Type.Literal('automated-call')], {
  description: '`transactional`: plain service messages; `marketing`: messages marked as marketing; `automated-call`: calls by an automated (AI) voice.',
});

const ConsentRecord = Type.Object({
  contact: Type.String(),
  scope: Type.String({ description: '`*`: given to the operator (every agent); else the agent\'s id.' }),
  kind: ConsentKindName,
  source: Type.String(),
  evidence: Type.Union([Type.String(), Type.Null()]),
  recordedAt: Type.String({ format: 'date-time', description: 'When it was given.' }),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const RecordConsentBody = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    contact: Contact,
    channel: ContactChannel,
    kind: ConsentKindName,
    source: Type.String({ minLength: 1, maxLength: 100, description: 'How it was given: `web-form`, `sms-keyword`, `call`, `paper`…' }),
    evidence: Type.Optional(Type.String({ maxLength: 2000, description: 'What shows it: the form\'s text and time, the message, the call\'s id.' })),
    givenAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the person gave it (not in the future); absent: now.' })),
  },
  { additionalProperties: false },
);
export type RecordConsentBody = Static<typeof RecordConsentBody>;

export const RecordConsentResponse = Type.Object({ success: Type.Literal(true), agentId: AgentId, consent: ConsentRecord });

export const RevokeConsentBody = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    contact: Contact,
    channel: ContactChannel,
    kind: Type.Optional(ConsentKindName),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
export type RevokeConsentBody = Static<typeof RevokeConsentBody>;

export const RevokeConsentResponse = Type.Object({
  success: Type.Literal(true),
  agentId: AgentId,
  contact: Type.String(),
  revoked: Type.Array(ConsentKindName, { description: 'The kinds that had a live consent, now revoked (the agent\'s own and the operator\'s).' }),
});

export const CheckConsentQuery = Type.Object(
  { agentId: Type.Optional(AgentId), contact: Contact, channel: ContactChannel, kind: Type.Optional(ConsentKindName) },
  { additionalProperties: false },
);
export type CheckConsentQuery = Static<typeof CheckConsentQuery>;

export const CheckConsentResponse = Type.Object({
  agentId: AgentId,
  contact: Type.String(),
  consented: Type.Record(Type.String(), Type.Boolean(), { description: 'Per kind asked (every kind when none was named): true when a live consent lets this agent contact them.' }),
  required: Type.Array(ConsentKindName, { description: 'The kinds this agent must find on record before contacting anyone (CONSENT_REQUIRED otherwise).' }),
  consents: Type.Array(ConsentRecord, { description: 'Every record this agent sees for them (its own and the operator\'s), live and revoked.' }),
});

export const DoNotContactBody = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    contact: Contact,
    channel: ContactChannel,
    reason: Type.Optional(Type.String({ maxLength: 500, description: 'What the person said, kept with the entry.' })),
  },
  { additionalProperties: false },
);
export type DoNotContactBody = Static<typeof DoNotContactBody>;

export const DoNotContactResponse = Type.Object({
  success: Type.Literal(true),
  agentId: AgentId,
  contact: Type.String(),
  scope: Type.String({ description: 'The agent\'s id: its own list.' }),
  changed: Type.Boolean({ description: 'False when they were on its list already.' }),
});

export const ContactSettingsBody = Type.Object(
  {
    requireConsent: Type.Optional(
      Type.Array(ConsentKindName, { maxItems: 3, description: 'The consent kinds the agent must find on record before it contacts a person; [] asks none. Absent: unchanged.' }),
    ),
    listUnsubscribe: Type.Optional(
      Type.Boolean({
        description:
          "Whether every email the agent sends carries one-click unsubscribe headers (List-Unsubscribe, List-Unsubscribe-Post; RFC 8058), whose link puts the recipient on the agent's do-not-contact list (email-unsubscribe). Absent: unchanged.",
      }),
    ),
    callingHoursOverride: Type.Optional(
      Type.Union([Type.Object({ reason: Type.String({ minLength: 3, maxLength: 500, description: 'Why the agent may call and send marketing outside calling hours (kept with the waiver).' }) }, { additionalProperties: false }), Type.Null()], {
        description: "Waive calling hours for this agent (CALLING_HOURS=enforce), with the reason, which is recorded; null lifts the waiver. The do-not-contact list and consent still apply. Absent: unchanged.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ContactSettingsBody = Static<typeof ContactSettingsBody>;

export const ContactSettingsResponse = Type.Object({
  ok: Type.Literal(true),
  agentId: AgentId,
  requireConsent: Type.Array(ConsentKindName),
  listUnsubscribe: Type.Boolean(),
  callingHoursOverride: Type.Union([Type.Object({ reason: Type.String(), setAt: Type.String({ format: 'date-time' }) }), Type.Null()], { description: 'The waiver of calling hours in force, with its reason and when it was set; null: calling hours apply.' }),
});

const RefusalCode = Type.String({ description: 'RECIPIENT_OPTED_OUT, EMAIL_SUPPRESSED, OUTSIDE_CALLING_HOURS or CONSENT_REQUIRED.' });

export const RefusalQuery = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    code: Type.Optional(Type.Union(['RECIPIENT_OPTED_OUT', 'EMAIL_SUPPRESSED', 'OUTSIDE_CALLING_HOURS', 'CONSENT_REQUIRED'].map((c) => Type.Literal(c)))),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The nextCursor of the page before.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  },
  { additionalProperties: false },
);
export type RefusalQuery = Static<typeof RefusalQuery>;

export const RefusalList = Type.Object({
  refusals: Type.Array(
    Type.Object({
      id: Type.String(),
      agentId: AgentId,
      channel: ChannelName,
      address: Type.String({ description: 'The person, as the do-not-contact list and consents key them.' }),
      code: RefusalCode,
      call: Type.Boolean({ description: 'A call (placed, bridged, a voice message) rather than a message.' }),
      message: Type.String({ description: 'The sentence the agent was given.' }),
      at: Type.String({ format: 'date-time' }),
    }),
    { description: 'Newest first.' },
  ),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
