import { createHmac, timingSafeEqual } from 'node:crypto';
import type { MediaStreamStart } from '@switchboard/sdk';

/** The query parameter of a stream URL that carries its token. */
const TOKEN_PARAMETER = 'token';

/**
 * The stream URL given to Telnyx: the gateway's media WebSocket URL with the session and a token, an
 * HMAC-SHA256 (keyed with the API key) over the URL without it. Telnyx signs no WebSocket upgrade, so
 * the URL it is told to open is what proves the connection is the one the driver asked for.
 */
export function signedStreamUrl(apiKey: string, url: string, sessionId: string | undefined): string {
  const base = sessionId ? withParameter(url, 'session', sessionId) : url;
  return withParameter(base, TOKEN_PARAMETER, streamToken(apiKey, base));
}

/** True when the URL carries the token `signedStreamUrl` gave it. */
export function streamUrlHolds(apiKey: string, url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const token = parsed.searchParams.get(TOKEN_PARAMETER);
  if (!token) return false;
  // The URL as it was signed: everything before `&token=` (the token is always the last parameter).
  const at = url.lastIndexOf(`${url.includes(`&${TOKEN_PARAMETER}=`) ? '&' : '?'}${TOKEN_PARAMETER}=`);
  if (at < 0) return false;
  const expected = Buffer.from(streamToken(apiKey, url.slice(0, at)));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function streamToken(apiKey: string, url: string): string {
  return createHmac('sha256', apiKey).update(`telnyx-media-stream\n${url}`).digest('base64url');
}

function withParameter(url: string, name: string, value: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(value)}`;
}

/** The connect step's parameters as `client_state` (base64 JSON), which Telnyx repeats in the stream's start frame and every webhook. */
export function clientStateOf(parameters: Readonly<Record<string, string>> | undefined): string | undefined {
  return parameters && Object.keys(parameters).length > 0 ? Buffer.from(JSON.stringify(parameters)).toString('base64') : undefined;
}

/** Reads `client_state` back into the connect step's parameters; {} when it is absent or not ours. */
export function parametersOf(clientState: unknown): Record<string, string> {
  if (typeof clientState !== 'string' || clientState === '') return {};
  try {
    const value = JSON.parse(Buffer.from(clientState, 'base64').toString('utf8')) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
    return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

/**
 * Telnyx's `start` frame: `start.call_control_id` is the call, the session comes back in
 * `start.custom_parameters` or `start.client_state`, and frames sent back name no stream
 * (`{"event":"media","media":{"payload":…}}`, `{"event":"clear"}`).
 */
export function readStreamStart(frame: Readonly<Record<string, unknown>>): MediaStreamStart {
  const start = (frame.start ?? {}) as { call_control_id?: unknown; client_state?: unknown; custom_parameters?: unknown };
  const custom = typeof start.custom_parameters === 'object' && start.custom_parameters !== null ? (start.custom_parameters as Record<string, unknown>) : {};
  const sessionId = typeof custom.sessionId === 'string' ? custom.sessionId : parametersOf(start.client_state).sessionId;
  return {
    ...(sessionId ? { sessionId } : {}),
    ...(typeof start.call_control_id === 'string' ? { callSid: start.call_control_id } : {}),
    // Closing a Telnyx stream leaves the call up: it is hung up by command.
    outlivesStream: true,
  };
}
