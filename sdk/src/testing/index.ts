export { describeDriverConformance, CONFORMANCE_CASES } from './conformance.js';
export type { DriverConformanceOptions, WebhookFixtures, ConformanceCase } from './conformance.js';
export { VOICE_CONFORMANCE_CASES, DEFAULT_CALL_STEPS } from './voice-conformance.js';
export type {
  VoiceConformanceCase,
  VoiceFixtures,
  SpeechSynthesisFixtures,
  SpeechRecognitionFixtures,
  RecognitionUtterance,
  TelephonyFixtures,
  PlaceCallRequest,
} from './voice-conformance.js';
export { AUDIO_FORMATS, CALL_STATUSES, assertSynthesizedAudio, assertCallStatusEvent, assertWellFormedXml } from './voice-checks.js';
export { assertWav } from './wav-checks.js';
export type { WavInfo } from './wav-checks.js';
export { startWebhookReceiver } from './webhook-receiver.js';
export type { WebhookReceiver, WebhookReceiverOptions, ReceivedWebhook } from './webhook-receiver.js';
export {
  MESSAGE_STATUSES,
  expectCode,
  assertManifest,
  assertSendResult,
  assertEvent,
  assertAck,
  tamperBody,
  stripSignature,
} from './checks.js';
