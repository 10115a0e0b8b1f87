import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { AuthLockout, Principal } from '@switchboard/runtime';

/** The part of the runtime's AuthLockout the gateway uses. */
export type Lockout = Pick<AuthLockout, 'retryAfter' | 'fail' | 'succeed'>;

/**
 * The principal of a token, checked under the client address's lockout. A correct token always
 * passes, even from a locked address. A wrong one from a locked address is answered RATE_LIMITED
 * with Retry-After and not counted; otherwise it counts towards the lock and undefined is returned,
 * for the caller's own UNAUTHORIZED answer.
 */
export async function checkToken(
  authenticate: (token: string) => Promise<Principal | undefined>,
  lockout: Lockout,
  token: string,
  address: string,
): Promise<Principal | undefined> {
  const principal = await authenticate(token);
  if (principal) {
    lockout.succeed(address);
    return principal;
  }
  const wait = lockout.retryAfter(address);
  if (wait > 0) {
    throw new SwitchboardError(ErrorCodes.RATE_LIMITED, `Too many failed authentications from this address; try again in ${wait} s.`, { retryAfter: wait });
  }
  lockout.fail(address);
  return undefined;
}
