/** WhatsApp's customer service window: free-form messages are allowed for 24 hours after the user's last message. */
export const WHATSAPP_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Twilio's error for a free-form WhatsApp message outside the window. */
export const WINDOW_CLOSED = {
  code: 63016,
  message: 'Failed to send freeform message because you are outside the allowed window. If you are using WhatsApp, please use a Message Template.',
} as const;

/** When each WhatsApp user last wrote to each of the account's senders, on the simulator's clock. */
export class WhatsAppWindows {
  readonly #lastInbound = new Map<string, number>();

  /** The user (`whatsapp:+…`) wrote to the sender at `at`. */
  wrote(user: string, sender: string, at: Date): void {
    this.#lastInbound.set(key(user, sender), at.getTime());
  }

  /** Whether the sender may send the user a free-form message at `now`. */
  isOpen(user: string, sender: string, now: Date): boolean {
    const last = this.#lastInbound.get(key(user, sender));
    return last !== undefined && now.getTime() - last < WHATSAPP_WINDOW_MS;
  }

  clear(): void {
    this.#lastInbound.clear();
  }
}

const key = (user: string, sender: string) => `${bare(user)} ${bare(sender)}`;
const bare = (address: string) => address.replace(/^whatsapp:/i, '');
