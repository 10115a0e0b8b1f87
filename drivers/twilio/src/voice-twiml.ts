import { ErrorCodes, SwitchboardError, type CallStep } from '@switchboard/sdk';
import twilio from 'twilio';

type VoiceResponse = InstanceType<typeof twilio.twiml.VoiceResponse>;
type SayAttributes = Parameters<VoiceResponse['say']>[0] & object;

/** What a voice webhook answers with: TwiML. */
export const TWIML_CONTENT_TYPE = 'text/xml';

/**
 * TwiML for the steps, built with the SDK's `VoiceResponse` (which escapes text and attributes):
 * connect → `<Connect><ConversationRelay>` (relay) or `<Connect><Stream>` (stream), with
 * `<Parameter>` children; say, play, dial (a number, `sip:` URI or `client:` identity), pause, hangup.
 */
export function renderTwiml(steps: readonly CallStep[]): { contentType: string; body: string } {
  const response = new twilio.twiml.VoiceResponse();
  for (const step of steps) appendStep(response, step);
  return { contentType: TWIML_CONTENT_TYPE, body: response.toString() };
}

function appendStep(response: VoiceResponse, step: CallStep): void {
  switch (step.kind) {
    case 'connect': {
      const connect = response.connect();
      const noun =
        step.mode === 'relay'
          ? connect.conversationRelay(
              defined({ url: step.url, welcomeGreeting: step.greeting, voice: step.voice, language: step.language }),
            )
          : connect.stream({ url: step.url });
      for (const [name, value] of Object.entries(step.parameters ?? {})) noun.parameter({ name, value });
      return;
    }
    case 'say':
      response.say(defined({ voice: step.voice, language: step.language }) as SayAttributes, step.text);
      return;
    case 'play':
      response.play(step.url);
      return;
    case 'dial': {
      const dial = response.dial(defined({ callerId: step.callerId }));
      if (step.number.startsWith('sip:')) dial.sip(step.number);
      else if (step.number.startsWith('client:')) dial.client(step.number.slice('client:'.length));
      else dial.number(step.number);
      return;
    }
    case 'pause':
      if (!Number.isFinite(step.seconds) || step.seconds < 0) throw invalid(`a pause of ${String(step.seconds)} seconds`);
      response.pause({ length: Math.max(1, Math.round(step.seconds)) });
      return;
    case 'hangup':
      response.hangup();
      return;
    default:
      throw invalid(`the step kind ${String((step as { kind?: unknown }).kind)}`);
  }
}

/** The attributes that have a value: the builder would otherwise write `attr="undefined"`. */
function defined<T extends Record<string, string | undefined>>(attributes: T): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: string };
}

function invalid(what: string): SwitchboardError {
  return new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `Twilio cannot render ${what}.`);
}
