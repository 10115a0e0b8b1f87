/** The channels Switchboard carries. */
export const CHANNELS = ['sms', 'email', 'whatsapp', 'line', 'voice'] as const;

/** One of the channels Switchboard carries. */
export type Channel = (typeof CHANNELS)[number];

/** True when `value` names a channel. */
export function isChannel(value: unknown): value is Channel {
  return typeof value === 'string' && (CHANNELS as readonly string[]).includes(value);
}

/**
 * What Switchboard knows of a channel besides its drivers. The runtime, the gateway and the admin UI
 * (through `GET /admin/api/channels`) read it, so a new channel is its entry in {@link CHANNEL_SPECS}
 * plus a driver that lists it in its manifest's `channels`.
 */
export interface ChannelSpec {
  /** How the admin UI names it: `SMS`, `WhatsApp`. */
  readonly label: string;
  /** Whether agents send messages on it (`switchboard:send:<channel>`); voice places calls instead. */
  readonly sends: boolean;
  /** The address an agent holds and a person is reached at on it. */
  readonly address: {
    /** Its kind: an E.164 phone number, an email address, a LINE user id. */
    readonly kind: 'e164' | 'email' | 'line-user';
    /** The whole address, as a recipient is checked. */
    readonly pattern: RegExp;
    /** What the pattern takes, in words, for refusals: `an email address`. */
    readonly what: string;
  };
  /** The pool its agents' addresses come from, and the setting that fills it (none: email addresses are made per agent under EMAIL_DOMAIN). */
  readonly pool: { readonly name: string; readonly setting?: string; readonly label?: string };
  /** The setting that chooses its providers among the loaded drivers (the driver capability is the channel itself). */
  readonly driverSetting: string;
  /** Whether that setting may list several providers in order, sends failing over from one to the next. */
  readonly failover: boolean;
  /** Its SMS-style destination-prefix routes setting, when it has one. */
  readonly routesSetting?: string;
  /**
   * Its provider webhooks: the path segment after `/webhooks/<agentId>/`, and the media types a driver
   * whose `webhooks` declare no `contentTypes` is taken to post (Twilio's form posts, else JSON).
   */
  readonly webhook: { readonly path: string; readonly contentTypes: readonly string[] };
}

const E164 = { kind: 'e164', pattern: /^\+[1-9][0-9]{6,14}$/, what: 'an E.164 phone number such as +14155550100' } as const;
const FORM = ['application/x-www-form-urlencoded'] as const;
const JSON_BODY = ['application/json'] as const;
const PHONE_POOL = { name: 'phone', setting: 'POOL_PHONE_NUMBERS', label: 'Phone numbers (E.164, SMS and voice)' } as const;

/** Each channel's {@link ChannelSpec}: what a new channel adds, beside its driver. */
export const CHANNEL_SPECS = {
  sms: {
    label: 'SMS',
    sends: true,
    address: E164,
    pool: PHONE_POOL,
    driverSetting: 'SMS_DRIVER',
    failover: true,
    routesSetting: 'SMS_ROUTES',
    webhook: { path: 'sms', contentTypes: FORM },
  },
  email: {
    label: 'Email',
    sends: true,
    address: { kind: 'email', pattern: /^[^\s@<>]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/, what: 'an email address' },
    pool: { name: 'email' },
    driverSetting: 'EMAIL_DRIVER',
    failover: true,
    webhook: { path: 'email', contentTypes: JSON_BODY },
  },
  whatsapp: {
    label: 'WhatsApp',
    sends: true,
    address: E164,
    pool: { name: 'whatsapp', setting: 'POOL_WHATSAPP_SENDERS', label: 'WhatsApp senders (E.164)' },
    driverSetting: 'WHATSAPP_DRIVER',
    failover: true,
    webhook: { path: 'whatsapp', contentTypes: FORM },
  },
  line: {
    label: 'LINE',
    sends: true,
    address: { kind: 'line-user', pattern: /^U[0-9a-f]{32}$/, what: 'a LINE user id (U followed by 32 hex digits)' },
    pool: { name: 'line', setting: 'POOL_LINE_CHANNELS', label: 'LINE bot user ids' },
    driverSetting: 'LINE_DRIVER',
    failover: true,
    webhook: { path: 'line', contentTypes: JSON_BODY },
  },
  voice: {
    label: 'Voice',
    sends: false,
    address: E164,
    pool: PHONE_POOL,
    driverSetting: 'VOICE_DRIVER',
    failover: false,
    webhook: { path: 'voice', contentTypes: FORM },
  },
} as const satisfies Record<Channel, ChannelSpec>;

/** A channel agents send messages on: every channel but voice. */
export type MessageChannel = { [C in Channel]: (typeof CHANNEL_SPECS)[C]['sends'] extends true ? C : never }[Channel];

/** The channels agents send messages on, in {@link CHANNELS} order. */
export const MESSAGE_CHANNELS: readonly MessageChannel[] = CHANNELS.filter((c): c is MessageChannel => CHANNEL_SPECS[c].sends);

/** The pools channels draw their addresses from (sms and voice share the phone pool). */
export type ChannelPool = (typeof CHANNEL_SPECS)[Channel]['pool']['name'];
