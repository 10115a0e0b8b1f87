import { Type, type Static } from '@sinclair/typebox';
import { AgentId, CALLBACK_URL_RULES, ChannelName } from './common.js';
import { ConsentKindName } from './consents.js';

export const ProvisionBody = Type.Object(
  {
    agentId: Type.Optional(AgentId),
    displayName: Type.String({ minLength: 1, maxLength: 200 }),
    channels: Type.Array(ChannelName, { minItems: 1, maxItems: 5 }),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2; phone numbers are picked from it.' })),
    emailDomain: Type.Optional(Type.String({ minLength: 3, maxLength: 253 })),
    greeting: Type.Optional(Type.String({ maxLength: 2000 })),
    systemPrompt: Type.Optional(Type.String({ maxLength: 20000 })),
    voice: Type.Optional(Type.String({ maxLength: 100 })),
    language: Type.Optional(Type.String({ maxLength: 35 })),
    recordCalls: Type.Optional(Type.Boolean({ description: "Record the agent's calls (both legs, one WAV file) unless a call says otherwise; off by default. Announcing the recording is the agent's choice, in its greeting." })),
    requireConsent: Type.Optional(
      Type.Array(ConsentKindName, {
        maxItems: 3,
        description:
          'Consent kinds the agent must find on record (comms_record_consent) before it contacts a person: a call needs automated-call, any other message transactional; refused with CONSENT_REQUIRED otherwise. Absent: none. The operator changes it with POST /admin/api/agents/{agentId}/contact-settings.',
      }),
    ),
    listUnsubscribe: Type.Optional(
      Type.Boolean({
        description:
          "Put one-click unsubscribe headers (List-Unsubscribe, List-Unsubscribe-Post; RFC 8058) on every email the agent sends: a recipient who uses them goes on the agent's do-not-contact list (source email-unsubscribe). Off by default; the operator changes it with POST /admin/api/agents/{agentId}/contact-settings.",
      }),
    ),
    callbackUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, description: CALLBACK_URL_RULES })),
  },
  { additionalProperties: false },
);
export type ProvisionBody = Static<typeof ProvisionBody>;

const ChannelGrant = Type.Object({ address: Type.String(), status: Type.Literal('active') });

export const ProvisionResponse = Type.Object({
  success: Type.Literal(true),
  agentId: AgentId,
  securityToken: Type.String({ description: 'The client token for this agent; shown once.' }),
  channels: Type.Record(Type.String(), ChannelGrant),
  signingSecret: Type.Optional(Type.String({ description: 'Callback signing secret, when callbackUrl was given.' })),
});

export const DeprovisionBody = Type.Object({ agentId: Type.Optional(AgentId) }, { additionalProperties: false });
export type DeprovisionBody = Static<typeof DeprovisionBody>;

export const DeprovisionResponse = Type.Object({
  success: Type.Literal(true),
  agentId: AgentId,
  status: Type.Literal('deprovisioned'),
  released: Type.Record(Type.String(), Type.String()),
});
