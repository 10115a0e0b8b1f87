/** The channels Switchboard carries. */
export const CHANNELS = ['sms', 'email', 'whatsapp', 'line', 'voice'] as const;

/** One of the channels Switchboard carries. */
export type Channel = (typeof CHANNELS)[number];

/** True when `value` names a channel. */
export function isChannel(value: unknown): value is Channel {
  return typeof value === 'string' && (CHANNELS as readonly string[]).includes(value);
}
