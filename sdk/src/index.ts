export { CHANNELS, CHANNEL_SPECS, MESSAGE_CHANNELS, isChannel } from './channels.js';
export type { Channel, ChannelPool, ChannelSpec, MessageChannel } from './channels.js';
export { CAPABILITIES, SPEECH_CAPABILITIES, TELEPHONY_FEATURES, isCapability, manifestCapabilities } from './capabilities.js';
export type { Capability, SpeechCapability, TelephonyFeature } from './capabilities.js';
export {
  ErrorCodes,
  SwitchboardError,
  hasErrorCode,
  isRetryable,
  isNotAccepted,
  toErrorPayload,
  fromErrorPayload,
} from './errors.js';
export type { ErrorCode, ErrorPayload, SwitchboardErrorOptions } from './errors.js';
export { defineDriver } from './driver.js';
export type {
  JsonSchema,
  DriverManifest,
  DriverLogger,
  DriverContext,
  MessageStatus,
  OutboundMessage,
  TemplateRef,
  MessageTemplate,
  MessageTemplates,
  SendResult,
  WebhookRequest,
  InboundMessageEvent,
  DeliveryStatusEvent,
  SentMessageRef,
  InboundEvent,
  WebhookAck,
  WebhookCapability,
  WebhookHandshakeAnswer,
  HealthResult,
  Driver,
  DriverModule,
} from './driver.js';
export type {
  AudioFormat,
  SynthesizedAudio,
  VoiceInfo,
  SpeechSynthesis,
  SpeechRecognition,
  RecognitionStream,
  CallStep,
  PlacedCall,
  Telephony,
  MediaStreamStart,
  CallStatusEvent,
  CallRecording,
  RecordingEvent,
  RecordingAudio,
} from './voice.js';
export { safeEqual, hmacSha256Base64, headerValue, signatureError, malformedPayload, providerError } from './signature.js';
export { validateDriver, checkDriverCapabilities } from './manifest.js';
export { countSegments } from './sms.js';
export { bareAddress } from './email.js';
export { wavFile, wavHeader } from './wav.js';
export type { SegmentCount } from './sms.js';
export { SDK_VERSION } from './version.js';
