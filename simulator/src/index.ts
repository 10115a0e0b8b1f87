export { startSimulator } from './simulator.js';
export type {
  InboundEmailEventOptions,
  InboundCloudMessageOptions,
  InboundEmailOptions,
  InboundLineOptions,
  InboundMessageStatusOptions,
  InboundPostmarkEmailOptions,
  InboundPostmarkEventOptions,
  InboundRecordingStatusOptions,
  InboundResult,
  InboundTelnyxMessageOptions,
  InboundTelnyxStatusOptions,
  InboundTelnyxCallEventOptions,
  InboundSenders,
  InboundTwilioMessageOptions,
  PostmarkWebhookAuth,
  WebhookTampering,
  WebhookTarget,
} from './inbound-types.js';
export type {
  FaultRule,
  LineBotCredentials,
  RecordedRequest,
  SentMessage,
  SentMessageFilter,
  SilentOutcome,
  SilentProvider,
  SimCall,
  SimCallStatus,
  SimCallUpdate,
  SimChannel,
  SimProvider,
  Simulator,
  SimulatorCredentials,
  SimulatorLogger,
  SimulatorOptions,
} from './types.js';
export type {
  AgentReply,
  CallEnd,
  CallRecording,
  CallTurn,
  ClearRecord,
  ConnectionRecord,
  FrameStats,
  HeardItem,
  MarkRecord,
  OutboundMatch,
  PacingStats,
  PhoneCall,
  PhoneCallOptions,
  PhoneOptions,
  PhoneScript,
  PhoneStep,
  SimulatorPhone,
  StatusEvent,
  TwimlFetch,
  VoiceMode,
} from './phone/phone-types.js';
export { upgradeSignature } from './phone/signed-websocket.js';
export { speechMs } from './phone/speech-frames.js';
export type { SimulatedDeepgram } from './deepgram/simulated-deepgram.js';
export type { ListenOptions, ListenSessionRecord, SentTranscript } from './deepgram/listen-session.js';
export { speechDurationMs, synthesizeSpeech, pcm16le, wavFile } from './audio.js';
export { decodeMulaw, encodeMulaw, encodeAlaw } from './g711.js';
export { countSegments } from './twilio/sms-segments.js';
export { SUPPORTED_OUTPUT_FORMATS } from './elevenlabs/output-formats.js';
