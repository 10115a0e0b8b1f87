import { CHANNEL_SPECS, ErrorCodes, SwitchboardError, type Channel } from '@switchboard/sdk';

/** Checks a recipient address against its channel's table entry; throws VALIDATION_FAILED saying what the channel takes. */
export function checkRecipient(channel: Channel, to: string): void {
  const { pattern, what } = CHANNEL_SPECS[channel].address;
  if (!pattern.test(to)) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `to must be ${what} for ${channel}.`);
}
