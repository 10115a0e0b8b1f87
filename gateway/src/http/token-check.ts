import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { AuthLockout, Principal } from '@switchboard/runtime';
import { BearerRefusal } from '../oauth/bearer-refusal.js';

/** The part of the runtime's AuthLockout the gateway uses. */
export type Lockout = Pick<AuthLockout, 'retryAfter' | 'fail' | 'succeed'>;

/**
 * The principal of a token, checked under the client address's lockout. A correct token always
 * passes, even from a locked address. A wrong one from a locked address is answered RATE_LIMITED
 * with Retry-After and not counted; otherwise it counts towards the lock and undefined is returned,
 * for the caller's own UNAUTHORIZED answer, or the authenticator's own refusal (an access token's
 * reason) is thrown.
 */
export async function checkToken(
  authenticate: (token: string) => Promise<Principal | undefined>,
  lockout: Lockout,
  token: string,
  address: string,
): Promise<Principal | undefined> {
  let principal: Principal | undefined;
  let refusal: BearerRefusal | undefined;
  try {
    principal = await authenticate(token);
  } catch (err) {
    if (!(err instanceof BearerRefusal)) throw err;
    refusal = err;
  }
  if (principal) {
    lockout.succeed(address);
    return principal;
  }
  const wait = lockout.retryAfter(address);
  if (wait > 0) {
    throw new SwitchboardError(ErrorCodes.RATE_LIMITED, `Too many failed authentications from this address; try again in ${wait} s.`, { retryAfter: wait });
  }
  lockout.fail(address);
  if (refusal) throw refusal;
  return undefined;
}
