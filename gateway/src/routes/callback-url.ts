import { ErrorCodes } from '@switchboard/sdk';
import { allowsPrivateNetworks, forbiddenCallbackHost, type Settings } from '@switchboard/runtime';
import { fail } from '../http/errors.js';

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Where the server may send callbacks: the environment, and whether internal addresses are allowed (CALLBACK_ALLOW_PRIVATE_NETWORKS). */
export interface CallbackUrlRules {
  readonly environment: string;
  readonly allowPrivateNetworks: boolean;
}

/** The rules of these settings. */
export function callbackUrlRules(ports: { readonly settings: Settings }): CallbackUrlRules {
  return { environment: ports.settings.NODE_ENV, allowPrivateNetworks: allowsPrivateNetworks(ports.settings) };
}

/**
 * Callback URLs must be https, or http to loopback outside production; unless private networks are
 * allowed, not to an internal address (checked again at each connection, on the resolved address).
 */
export function checkCallbackUrl(url: string, rules: CallbackUrlRules): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail(ErrorCodes.VALIDATION_FAILED, 'callbackUrl is not a valid URL.');
  }
  const schemeAllowed = parsed.protocol === 'https:' || (parsed.protocol === 'http:' && rules.environment !== 'production' && LOOPBACK.test(parsed.hostname));
  if (!schemeAllowed) {
    fail(
      ErrorCodes.VALIDATION_FAILED,
      rules.environment === 'production'
        ? 'callbackUrl must use https://.'
        : 'callbackUrl must use https://, or http:// to localhost/127.0.0.1 outside production.',
    );
  }
  const forbidden = rules.allowPrivateNetworks ? undefined : forbiddenCallbackHost(parsed);
  if (forbidden) {
    fail(
      ErrorCodes.VALIDATION_FAILED,
      `callbackUrl points at ${forbidden}, which this server does not call: use a public address, or set CALLBACK_ALLOW_PRIVATE_NETWORKS=true if your agents live on a private network.`,
    );
  }
}
