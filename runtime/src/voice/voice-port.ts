import type { WebhookRequest } from '@switchboard/sdk';
import type { VoiceWebhook } from '../protocol/operations.js';
import type { AudioOnDemand } from '../audio/audio-on-demand.js';
import type { LiveCall, VoicePort } from '../ports.js';
import type { Store } from '../store/store.js';
import { RelayCall } from './relay-call.js';
import { StreamCall } from './stream-call.js';
import type { VoiceMessageStore } from './voice-messages.js';
import type { VoiceService } from './voice-service.js';

/** The voice side a gateway holds: webhook verification, stored voice messages, and the live calls on its media sockets. */
export class CallVoicePort implements VoicePort {
  constructor(
    private readonly voice: VoiceService,
    private readonly store: Store,
    private readonly voiceMessages: VoiceMessageStore,
    private readonly audio: AudioOnDemand,
  ) {}

  readonly verify = (webhook: VoiceWebhook): Promise<WebhookRequest> => {
    return this.voice.verify(webhook);
  };

  readonly agentOfCall = (request: WebhookRequest): Promise<string | undefined> => {
    return this.voice.agentOfCall(request);
  };

  readonly agentOfRecording = (request: WebhookRequest): Promise<string | undefined> => {
    return this.voice.agentOfRecording(request);
  };

  readonly recordingPath = (file: string): string | undefined => {
    return this.voice.recordings.pathOf(file);
  };

  readonly voiceMessagePath = (name: string): string | undefined => {
    return this.voiceMessages.pathOf(name);
  };

  readonly openCall = (mode: 'relay' | 'stream', agentId: string, hangUp: () => void, send: (text: string) => void): LiveCall => {
    return mode === 'stream'
      ? new StreamCall(this.voice, this.store, agentId, hangUp, this.audio.get()).attach(send)
      : new RelayCall(this.voice, this.store, agentId, hangUp).attach((out) => send(JSON.stringify(out)));
  };

  get liveCalls(): number {
    return this.voice.sessions.size;
  }
}
