import { ErrorCodes, SwitchboardError, type Channel } from '@switchboard/sdk';

const E164 = /^\+[1-9][0-9]{6,14}$/;
const EMAIL = /^[^\s@<>]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/;
const LINE_USER = /^U[0-9a-f]{32}$/;

/** Checks a recipient address for a channel; throws VALIDATION_FAILED saying what the channel takes. */
export function checkRecipient(channel: Channel, to: string): void {
  const [pattern, what] =
    channel === 'email' ? [EMAIL, 'an email address'] : channel === 'line' ? [LINE_USER, 'a LINE user id (U followed by 32 hex digits)'] : [E164, 'an E.164 phone number such as +14155550100'];
  if (!pattern.test(to)) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `to must be ${what} for ${channel}.`);
}
