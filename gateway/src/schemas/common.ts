import { Type, type TSchema } from '@sinclair/typebox';
import { CHANNELS } from '@switchboard/sdk';

/** The contract's agent id. */
export const AgentId = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$',
  description: 'Letters, digits, _ . - ; starts with a letter or digit; at most 64 characters.',
});

export const ChannelName = Type.Union(
  CHANNELS.map((c) => Type.Literal(c)),
  { description: 'One of sms, email, whatsapp, line, voice.' },
);

/** E.164 phone number. */
/** What a callback URL may be, for the schemas that take one. */
export const CALLBACK_URL_RULES =
  'https:// (http:// to loopback outside production). Unless the CALLBACK_ALLOW_PRIVATE_NETWORKS setting allows them, a host that is a loopback, private, link-local, carrier-grade NAT, multicast, unspecified or reserved address is refused (400), and so is a name that resolves to one when a callback is posted.';
export const PhoneNumber = Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: 'E.164, e.g. +14155550100.' });

/** The contract's error body. */
export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'One clear sentence saying what went wrong and what to do.' }),
    code: Type.String({ description: 'Stable machine-readable code, e.g. VALIDATION_FAILED.' }),
    details: Type.Optional(Type.Array(Type.Unknown())),
  },
);

/**
 * The 403 of a route that contacts a person: besides FORBIDDEN and CHANNEL_BLOCKED, each refusal of the
 * contact policy (runtime/src/compliance), which reaches no provider and is stored for the operator.
 */
export function contactRefusals(): Record<403, { description: string; schema: TSchema }> {
  return {
    403: {
      description: [
        'The token may not do this (FORBIDDEN), or the channel is blocked by the operator (CHANNEL_BLOCKED), or the contact policy refused it; nothing reached a provider:',
        'RECIPIENT_OPTED_OUT — the person is on the do-not-contact list (a text STOP, the agent\'s comms_do_not_contact, the operator); do not contact them on any channel;',
        'EMAIL_SUPPRESSED — an email to this address bounced for good, or its reader marked one as spam (`details[0].event`, `details[0].since`); do not email it until the operator lifts it;',
        'OUTSIDE_CALLING_HOURS — a call outside the calling hours where the person is (CALLING_HOURS=enforce); `details[0].opensAt` says when they open;',
        'CONSENT_REQUIRED — the agent requires a consent of this kind (`details[0].kind`) and none is on record; record it with comms_record_consent once the person gave it.',
      ].join(' '),
      schema: ErrorBody,
    },
  };
}

/** Standard error responses for a route with the given auth. */
export function errorResponses(...statuses: number[]): Record<number, { description: string; schema: TSchema }> {
  const text: Record<number, string> = {
    400: 'Malformed request or an unknown field or query parameter, named with the allowed ones (BAD_REQUEST); a missing or invalid field (VALIDATION_FAILED).',
    401: 'Missing or invalid bearer token (UNAUTHORIZED).',
    403: 'The token may not do this (FORBIDDEN), or a signature failed.',
    404: 'No such agent or resource (NOT_FOUND).',
    409: 'Conflict (CONFLICT, POOL_EXHAUSTED, CHANNEL_NOT_PROVISIONED).',
    413: 'Body over the size limit (PAYLOAD_TOO_LARGE).',
    415: 'Wrong content type (UNSUPPORTED_MEDIA_TYPE).',
    429: 'Rate limited (RATE_LIMITED); see Retry-After.',
    502: 'The provider failed (PROVIDER_ERROR).',
    503: 'Not served for a moment (UNAVAILABLE); retry, after Retry-After when given.',
  };
  return Object.fromEntries(statuses.map((s) => [s, { description: text[s] ?? 'Error.', schema: ErrorBody }]));
}
