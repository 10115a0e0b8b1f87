import { Type, type Static } from '@sinclair/typebox';
import { AgentId } from './common.js';

/** An E.164 number (or `whatsapp:` one), an email address or a LINE user id; the route normalises it. */
const ContactAddress = Type.String({ minLength: 3, maxLength: 254, description: 'An E.164 number (`whatsapp:` allowed), an email address or a LINE user id.' });

const Scope = Type.Union([Type.Literal('*'), AgentId], { description: '`*`: every agent of the operator (the default); an agent id: that agent only.' });

const Source = Type.Union(
  ['sms-stop', 'whatsapp-opt-out', 'email-unsubscribe', 'email-bounce', 'complaint', 'agent', 'admin', 'import'].map((source) => Type.Literal(source)),
  {
    description:
      'Where the entry came from: a text STOP (sms-stop), STOP on WhatsApp (whatsapp-opt-out), an email\'s one-click unsubscribe link (email-unsubscribe), a hard bounce (email-bounce) or spam complaint (complaint) the provider reported, the agent (agent), the operator (admin), a CSV import (import).',
  },
);

const ContactChannel = Type.Union(['sms', 'whatsapp', 'email', 'line', 'voice'].map((channel) => Type.Literal(channel)));

export const ContactBlockView = Type.Object({
  address: Type.String(),
  scope: Type.String(),
  source: Source,
  reason: Type.Union([Type.String(), Type.Null()]),
  actor: Type.String({ description: 'Who added it: `operator`, `agent:<id>`, `contact` (the person), `provider` (a bounce or complaint), `import`.' }),
  createdAt: Type.String({ format: 'date-time' }),
  channels: Type.Union([Type.Array(ContactChannel), Type.Null()], { description: 'The channels it keeps the person from, when the operator narrowed it; null: every channel (calls and messages alike).' }),
});

export const ContactBlockList = Type.Object({ entries: Type.Array(ContactBlockView), nextCursor: Type.Union([Type.String(), Type.Null()]) });

export const ContactBlockQuery = Type.Object(
  {
    scope: Type.Optional(Scope),
    after: Type.Optional(Type.String({ maxLength: 254, description: 'The address the previous page ended with (its nextCursor).' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  },
  { additionalProperties: false },
);
export type ContactBlockQuery = Static<typeof ContactBlockQuery>;

export const ContactBlockBody = Type.Object(
  { address: ContactAddress, scope: Type.Optional(Scope), reason: Type.Optional(Type.String({ maxLength: 500 })) },
  { additionalProperties: false },
);
export type ContactBlockBody = Static<typeof ContactBlockBody>;

export const ContactUnblockBody = Type.Object(
  { address: ContactAddress, scope: Type.Optional(Scope), reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why the person may be contacted again: kept in the log.' }) },
  { additionalProperties: false },
);
export type ContactUnblockBody = Static<typeof ContactUnblockBody>;

export const ContactNarrowBody = Type.Object(
  {
    address: ContactAddress,
    scope: Type.Optional(Scope),
    channels: Type.Array(ContactChannel, { minItems: 1, maxItems: 5, uniqueItems: true, description: 'The channels the entry keeps the person from from now on (e.g. ["sms"]: texts, not calls).' }),
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why (the person asked only not to be texted): kept in the log.' }),
  },
  { additionalProperties: false },
);
export type ContactNarrowBody = Static<typeof ContactNarrowBody>;

export const ContactBlockChanged = Type.Object({ address: Type.String(), scope: Type.String(), changed: Type.Boolean({ description: 'False when the list already was so.' }) });

export const ContactHistoryQuery = Type.Object({ address: ContactAddress }, { additionalProperties: false });
export type ContactHistoryQuery = Static<typeof ContactHistoryQuery>;

export const ContactHistory = Type.Object({
  address: Type.String(),
  changes: Type.Array(
    Type.Object({
      action: Type.Union([Type.Literal('added'), Type.Literal('narrowed'), Type.Literal('removed')]),
      scope: Type.String(),
      source: Source,
      reason: Type.Union([Type.String(), Type.Null()]),
      actor: Type.String(),
      at: Type.String({ format: 'date-time' }),
    }),
  ),
});

export const ContactImportResult = Type.Object({
  added: Type.Integer({ description: 'Addresses newly listed.' }),
  alreadyListed: Type.Integer(),
  rejected: Type.Array(Type.Object({ line: Type.Integer(), value: Type.String(), reason: Type.String() }), { description: 'Rows not imported, with why.' }),
});

export const ErasureBody = Type.Object({ address: ContactAddress }, { additionalProperties: false });
export type ErasureBody = Static<typeof ErasureBody>;

const counted = (description: string) => Type.Integer({ minimum: 0, description });

export const ErasureReceipt = Type.Object({
  erasureId: Type.String(),
  person: Type.String({ description: '`erased:` and the SHA-256 of the address: the person is named by nothing readable.' }),
  erasedAt: Type.String({ format: 'date-time' }),
  erased: Type.Object({
    messages: counted('Messages to and from them, every channel.'),
    calls: counted('Calls with them, with their ledgers and transcripts.'),
    recordings: counted('Recording files removed.'),
    deadLetters: counted('Dead letters.'),
    inboxEntries: counted('Agents’ inbox entries.'),
    callbackEvents: counted('Callback events that carried them, with their delivery log.'),
    conversationLinks: counted('Contact links of conversations.'),
    consents: counted('Consent records.'),
    optOuts: counted('SMS opt-outs (STOP).'),
    idempotentAnswers: counted('Stored answers of idempotent sends to them.'),
    contactRefusals: counted('Messages and calls to them the contact policy refused, as stored for the operator.'),
  }),
  keptOnDoNotContact: counted('Do-not-contact entries kept under the digest, so they are still not contacted.'),
});
