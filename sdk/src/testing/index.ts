export { describeDriverConformance, CONFORMANCE_CASES } from './conformance.js';
export type { DriverConformanceOptions, WebhookFixtures, ConformanceCase } from './conformance.js';
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
