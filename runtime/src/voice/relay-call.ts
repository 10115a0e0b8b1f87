import { clock, type TurnTimer } from './call-ledger.js';
import type { CallSession } from './call-session.js';
import { MediaCall } from './media-call.js';

/**
 * A call in relay mode: Twilio ConversationRelay does speech recognition and synthesis and exchanges
 * text with us — `setup`, `prompt`, `interrupt`, `dtmf` in; `text` (with `last`), `end` out.
 */
export class RelayCall extends MediaCall {
  #send: (message: object) => void = () => undefined;

  /** Where outgoing frames go (the WebSocket). */
  attach(send: (message: object) => void): this {
    this.#send = send;
    return this;
  }

  async handle(message: Record<string, unknown>): Promise<void> {
    switch (message.type) {
      case 'setup': {
        this.mediaStarted();
        const parameters = (message.customParameters ?? {}) as Record<string, string>;
        const ok = await this.begin(parameters.sessionId, typeof message.callSid === 'string' ? message.callSid : undefined);
        if (!ok) this.#send({ type: 'end', handoffData: JSON.stringify({ reason: 'unknown session' }) });
        return;
      }
      case 'prompt':
        if (message.last !== false && typeof message.voicePrompt === 'string') await this.heard(message.voicePrompt);
        return;
      case 'dtmf':
        if (typeof message.digit === 'string') await this.heard(message.digit);
        return;
      case 'interrupt':
        // The provider has already stopped speaking: the ledger notes when, with no stop time of ours.
        this.bargedIn(clock(), null);
        return;
      default:
        return; // error and info frames need nothing.
    }
  }

  protected async say(text: string, timer?: TurnTimer): Promise<void> {
    this.#send({ type: 'text', token: text, last: true });
    timer?.mark('firstFrameSent');
  }

  /** The provider holds a relay call's audio: it records the call. */
  protected record(session: CallSession): void {
    this.voice.recordByProvider(session);
  }

  protected async finish(): Promise<void> {
    this.#send({ type: 'end' });
    if (this.session) this.voice.end(this.session);
  }
}
