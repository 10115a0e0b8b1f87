import type { SimulatorState } from '../simulator-state.js';
import type { SilentOutcome } from '../types.js';
import { API_VERSION } from './twilio-format.js';
import type { TwilioMessage } from './twilio-ledger.js';
import { postTwilioWebhook } from './twilio-webhook.js';

/** Price per segment the simulated carrier bills, in USD. */
const PRICE_PER_SEGMENT = { sms: 0.0079, whatsapp: 0.005 } as const;

/** Twilio's price string: negative, five decimals (`-0.00790`). */
export function messagePrice(message: Pick<TwilioMessage, 'channel' | 'numSegments'>): string {
  return (-PRICE_PER_SEGMENT[message.channel] * message.numSegments).toFixed(5);
}

/** Form parameters of a message status callback, as Twilio posts them. */
export function statusCallbackParams(message: TwilioMessage, status: string, extra: Record<string, string> = {}): Record<string, string> {
  const params: Record<string, string> = {
    AccountSid: message.accountSid,
    ApiVersion: API_VERSION,
    From: message.sender,
    MessageSid: message.sid,
    MessageStatus: status,
    SmsSid: message.sid,
    SmsStatus: status,
    To: message.to,
  };
  if (message.messagingServiceSid) params['MessagingServiceSid'] = message.messagingServiceSid;
  if (message.channel === 'whatsapp') params['ChannelToAddress'] = message.to.replace(/^whatsapp:/, '');
  return { ...params, ...extra };
}

/** `RawDlrDoneDate` as carriers send it: YYMMDDhhmm. */
function rawDlrDoneDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCFullYear() % 100)}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}`;
}

/**
 * Moves a new message to `sent` then `delivered`, one delay apart, and posts a signed callback
 * for each to its StatusCallback. A failed post is logged and otherwise ignored, like Twilio.
 */
export function scheduleMessageStatusCallbacks(state: SimulatorState, message: TwilioMessage): void {
  const delay = state.settings.statusCallbackDelayMs;
  const advance = async (status: 'sent' | 'delivered') => {
    const now = new Date();
    message.status = status;
    message.dateUpdated = now;
    if (status === 'sent') message.dateSent = now;
    const extra: Record<string, string> = {};
    if (status === 'delivered') {
      message.price = messagePrice(message);
      extra['Price'] = message.price;
      extra['PriceUnit'] = 'USD';
      extra['RawDlrDoneDate'] = rawDlrDoneDate(now);
    }
    if (!message.statusCallback) return;
    try {
      const answer = await postTwilioWebhook(
        state.credentials.twilio.authToken,
        message.statusCallback,
        statusCallbackParams(message, status, extra),
        {},
        'MessageStatus',
      );
      if (answer.status >= 400) {
        state.logger.warn({ messageSid: message.sid, status, answer: answer.status }, 'simulator: status callback refused');
      }
    } catch (err) {
      state.logger.warn({ messageSid: message.sid, status, err }, 'simulator: status callback failed');
    }
  };
  const generation = state.tasks.generation;
  state.tasks.run(delay, async () => {
    await advance('sent');
    // `delivered` follows only once `sent` was posted, so the two never arrive out of order.
    if (state.tasks.generation === generation) state.tasks.run(delay, () => advance('delivered'));
  });
}

/**
 * A message Twilio took and then could not send (WhatsApp's window closed: 63016): one delay later it
 * is `failed` with the error, and a callback says so (unless Twilio is silenced).
 */
export function scheduleMessageFailure(state: SimulatorState, message: TwilioMessage, error: { readonly code: number; readonly message: string }): void {
  state.tasks.run(state.settings.statusCallbackDelayMs, async () => {
    message.status = 'failed';
    message.dateUpdated = new Date();
    message.errorCode = error.code;
    message.errorMessage = error.message;
    if (!message.statusCallback || !state.settings.statusCallbacks || state.silenced.has('twilio')) return;
    try {
      const params = statusCallbackParams(message, 'failed', { ErrorCode: String(error.code), ErrorMessage: error.message });
      await postTwilioWebhook(state.credentials.twilio.authToken, message.statusCallback, params, {}, 'MessageStatus');
    } catch (err) {
      state.logger.warn({ messageSid: message.sid, err }, 'simulator: status callback failed');
    }
  });
}

/** Twilio's error for a message the carrier could not hand to the phone. */
const UNREACHABLE = { code: 30003, message: 'Unreachable destination handset' } as const;

/**
 * A silenced Twilio (`Simulator.silence`): the message moves to `sent`, then to `outcome`, one delay
 * apart, with no callback; only a Messages fetch tells.
 */
export function scheduleSilentOutcome(state: SimulatorState, message: TwilioMessage, outcome: SilentOutcome): void {
  const delay = state.settings.statusCallbackDelayMs;
  const advance = (status: 'sent' | 'delivered' | 'undelivered') => {
    const now = new Date();
    message.status = status;
    message.dateUpdated = now;
    if (status === 'sent') message.dateSent = now;
    if (status === 'delivered') message.price = messagePrice(message);
    if (status === 'undelivered') {
      message.errorCode = UNREACHABLE.code;
      message.errorMessage = UNREACHABLE.message;
    }
  };
  state.tasks.run(delay, () => {
    advance('sent');
    if (outcome !== 'sent') state.tasks.run(delay, () => advance(outcome));
  });
}
