import { MESSAGE_CHANNELS } from '@switchboard/sdk';

/**
 * The scope grammar of OAuth access tokens: `switchboard:<action>`, and for sending
 * `switchboard:send:<channel>`. A scope grants itself and every narrower one, so
 * `switchboard:send` grants `switchboard:send:sms`. The agent comes from a claim, not a scope.
 */
export const SCOPE_PREFIX = 'switchboard';

/** What a principal may do for its agent. */
export type ScopeAction = 'send' | 'call' | 'read' | 'configure';

/** Every scope this server understands, for the protected-resource metadata: one to send on each message channel (voice is `call`). */
export const SCOPES_SUPPORTED: readonly string[] = [
  `${SCOPE_PREFIX}:send`,
  ...MESSAGE_CHANNELS.map((c) => `${SCOPE_PREFIX}:send:${c}`),
  `${SCOPE_PREFIX}:call`,
  `${SCOPE_PREFIX}:read`,
  `${SCOPE_PREFIX}:configure`,
];

/** The narrowest scope that permits `action` (on `channel`, for send). */
export function scopeFor(action: ScopeAction, channel?: string): string {
  return channel === undefined ? `${SCOPE_PREFIX}:${action}` : `${SCOPE_PREFIX}:${action}:${channel}`;
}

/** The scope a request with this input needs for `action`: for send, on the input's channel. */
export function scopeOf(action: ScopeAction, input: unknown): string {
  const channel = (input as { channel?: unknown } | undefined)?.channel;
  // Input not yet validated: a channel that is not one names no scope of its own.
  return scopeFor(action, action === 'send' && MESSAGE_CHANNELS.includes(channel as never) ? (channel as string) : undefined);
}

/** True when one of `granted` is `required` or a broader scope of it. */
export function grants(granted: readonly string[], required: string): boolean {
  return granted.some((scope) => scope === required || required.startsWith(`${scope}:`));
}

/** The scopes of a JWT access token: the `scope` claim (space-separated, RFC 9068) or a `scp` array. */
export function scopesOf(claims: Readonly<Record<string, unknown>>): string[] {
  if (typeof claims.scope === 'string') return claims.scope.split(' ').filter((s) => s !== '');
  if (Array.isArray(claims.scp)) return claims.scp.filter((s): s is string => typeof s === 'string');
  return [];
}
