import { ErrorCodes, SwitchboardError, type CallStep } from '@switchboard/sdk';
import { clientStateOf, signedStreamUrl } from './voice-stream.js';

/** One Call Control command for a step: its action and body. */
export type CallCommand =
  | { readonly action: 'streaming_start'; readonly body: StreamParams }
  | { readonly action: 'speak'; readonly body: { payload: string; voice: string; language?: string } }
  | { readonly action: 'playback_start'; readonly body: { audio_url: string } }
  | { readonly action: 'transfer'; readonly body: { to: string; from?: string } }
  | { readonly action: 'hangup'; readonly body: Record<string, never> };

/** The media-stream fields of a dial, answer or streaming_start: both ways, 8 kHz μ-law (PCMU) RTP payloads. */
export interface StreamParams {
  stream_url: string;
  stream_track: 'inbound_track';
  stream_bidirectional_mode: 'rtp';
  stream_bidirectional_codec: 'PCMU';
  client_state?: string;
}

/** Telnyx's own text-to-speech voice for `say` steps that name none. */
const DEFAULT_SPEAK_VOICE = 'female';

/** The stream a connect step asks for, as Call Control fields; throws for relay mode (Twilio's ConversationRelay). */
export function streamParams(apiKey: string, step: Extract<CallStep, { kind: 'connect' }>): StreamParams {
  if (step.mode !== 'stream') throw invalid('a relay-mode connect (ConversationRelay is Twilio\'s); set VOICE_MODE=stream for Telnyx calls');
  const clientState = clientStateOf(step.parameters);
  return {
    stream_url: signedStreamUrl(apiKey, step.url, step.parameters?.sessionId),
    stream_track: 'inbound_track',
    stream_bidirectional_mode: 'rtp',
    stream_bidirectional_codec: 'PCMU',
    ...(clientState ? { client_state: clientState } : {}),
  };
}

/** The Call Control commands for steps on a live call, in order; a pause is no command (Call Control runs them as they come). */
export function callCommands(apiKey: string, steps: readonly CallStep[]): CallCommand[] {
  const commands: CallCommand[] = [];
  for (const step of steps) {
    switch (step.kind) {
      case 'connect':
        commands.push({ action: 'streaming_start', body: streamParams(apiKey, step) });
        break;
      case 'say':
        commands.push({ action: 'speak', body: { payload: step.text, voice: step.voice ?? DEFAULT_SPEAK_VOICE, ...(step.language ? { language: step.language } : {}) } });
        break;
      case 'play':
        commands.push({ action: 'playback_start', body: { audio_url: step.url } });
        break;
      case 'dial':
        commands.push({ action: 'transfer', body: { to: step.number, ...(step.callerId ? { from: step.callerId } : {}) } });
        break;
      case 'pause':
        if (!Number.isFinite(step.seconds) || step.seconds < 0) throw invalid(`a pause of ${String(step.seconds)} seconds`);
        break;
      case 'hangup':
        commands.push({ action: 'hangup', body: {} });
        break;
      default:
        throw invalid(`the step kind ${String((step as { kind?: unknown }).kind)}`);
    }
  }
  return commands;
}

export function invalid(what: string): SwitchboardError {
  return new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `Telnyx Call Control cannot do ${what}.`);
}
