export { startSimulator } from './simulator.js';
export type {
  FaultRule,
  InboundEmailEventOptions,
  InboundEmailOptions,
  InboundLineOptions,
  InboundMessageStatusOptions,
  InboundResult,
  InboundSenders,
  InboundTwilioMessageOptions,
  RecordedRequest,
  SentMessage,
  SentMessageFilter,
  SimCall,
  SimCallStatus,
  SimCallUpdate,
  SimChannel,
  SimProvider,
  Simulator,
  SimulatorCredentials,
  SimulatorLogger,
  SimulatorOptions,
  WebhookTampering,
  WebhookTarget,
} from './types.js';
export { speechDurationMs, synthesizeSpeech, pcm16le, wavFile } from './audio.js';
export { decodeMulaw, encodeMulaw, encodeAlaw } from './g711.js';
export { countSegments } from './twilio/sms-segments.js';
export { SUPPORTED_OUTPUT_FORMATS } from './elevenlabs/output-formats.js';
