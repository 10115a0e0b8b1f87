import assert from 'node:assert/strict';
import semver from 'semver';
import { CHANNELS } from '../channels.js';
import { SPEECH_CAPABILITIES } from '../capabilities.js';
import type { DriverManifest, InboundEvent, MessageStatus, SendResult, WebhookAck, WebhookRequest } from '../driver.js';
import { hasErrorCode } from '../errors.js';

/** Every normalised delivery state a driver reports; it must map provider states onto these (`unknown` is the runtime's own). */
export const MESSAGE_STATUSES: readonly MessageStatus[] = [
  'queued',
  'accepted',
  'sending',
  'sent',
  'delivered',
  'read',
  'received',
  'undelivered',
  'failed',
];

/** Runs `action` and asserts it fails with the given stable code; returns the error for further checks. */
export async function expectCode(action: () => unknown, code: string): Promise<{ code: string; message: string; retryable?: unknown }> {
  let outcome: unknown;
  try {
    await action();
  } catch (err) {
    outcome = err;
  }
  assert.ok(outcome !== undefined, `expected a ${code} error, but the call succeeded`);
  assert.ok(hasErrorCode(outcome), `expected a ${code} error, got ${describe(outcome)}`);
  assert.equal(outcome.code, code, `expected code ${code}, got ${outcome.code}: ${outcome.message}`);
  return outcome as { code: string; message: string; retryable?: unknown };
}

/** Asserts the manifest carries what the runtime relies on. */
export function assertManifest(manifest: DriverManifest): void {
  assert.equal(typeof manifest, 'object', 'manifest must be an object');
  for (const field of ['name', 'version', 'provider', 'sdk'] as const) {
    assert.equal(typeof manifest[field], 'string', `manifest.${field} must be a string`);
    assert.ok(manifest[field].length > 0, `manifest.${field} must not be empty`);
  }
  assert.ok(semver.valid(manifest.version), `manifest.version ${manifest.version} is not a semver version`);
  assert.ok(semver.validRange(manifest.sdk), `manifest.sdk ${manifest.sdk} is not a semver range`);
  assert.ok(Array.isArray(manifest.channels), 'manifest.channels must be an array');
  const speech = manifest.speech ?? [];
  assert.ok(Array.isArray(speech), 'manifest.speech must be an array when given');
  assert.ok(manifest.channels.length + speech.length > 0, 'the manifest must list at least one channel or speech service');
  for (const service of speech) assert.ok((SPEECH_CAPABILITIES as readonly string[]).includes(service), `manifest.speech has unknown service ${String(service)}`);
  assert.equal(new Set(speech).size, speech.length, 'manifest.speech has duplicates');
  for (const channel of manifest.channels) {
    assert.ok((CHANNELS as readonly string[]).includes(channel), `manifest.channels has unknown channel ${String(channel)}`);
  }
  assert.equal(new Set(manifest.channels).size, manifest.channels.length, 'manifest.channels has duplicates');
  const schema = manifest.settingsSchema;
  assert.ok(schema !== null && typeof schema === 'object' && !Array.isArray(schema), 'manifest.settingsSchema must be an object');
  assert.equal(schema['type'], 'object', 'manifest.settingsSchema must describe an object (type: "object")');
}

/** Asserts a send result has the documented types. */
export function assertSendResult(result: SendResult): void {
  assert.equal(typeof result, 'object', 'send must resolve with an object');
  assert.equal(typeof result.externalId, 'string', 'externalId must be a string');
  assert.ok(result.externalId.length > 0, 'externalId must not be empty');
  assert.ok(MESSAGE_STATUSES.includes(result.status), `status ${String(result.status)} is not a normalised MessageStatus`);
  assertCost(result.cost, 'cost');
  assert.ok(Number.isInteger(result.segments) && result.segments >= 1, `segments must be an integer >= 1, got ${String(result.segments)}`);
}

/** Asserts an event is one of the normalised inbound event shapes, on one of the driver's channels. */
export function assertEvent(event: InboundEvent, manifest: DriverManifest): void {
  assert.ok(manifest.channels.includes(event.channel), `event channel ${String(event.channel)} is not one of the driver's channels`);
  assert.equal(typeof event.externalId, 'string', 'event.externalId must be a string');
  assert.ok(event.externalId.length > 0, 'event.externalId must not be empty');
  if (event.type === 'message') {
    for (const field of ['from', 'to', 'body'] as const) {
      assert.equal(typeof event[field], 'string', `message.${field} must be a string`);
    }
    assert.ok(event.from.length > 0, 'message.from must not be empty');
    assert.ok(Array.isArray(event.mediaUrls), 'message.mediaUrls must be an array');
    for (const url of event.mediaUrls) assert.equal(typeof url, 'string', 'message.mediaUrls must hold strings');
    for (const field of ['subject', 'html'] as const) {
      if (event[field] !== undefined) assert.equal(typeof event[field], 'string', `message.${field} must be a string when present`);
    }
    assert.equal(typeof event.receivedAt, 'string', 'message.receivedAt must be a string');
    assert.equal(new Date(event.receivedAt).toISOString(), event.receivedAt, 'message.receivedAt must be an ISO 8601 UTC time');
    return;
  }
  assert.equal(event.type, 'status', `event.type must be "message" or "status", got ${String((event as { type?: unknown }).type)}`);
  assert.ok(MESSAGE_STATUSES.includes(event.status), `status ${String(event.status)} is not a normalised MessageStatus`);
  assertCost(event.cost, 'status.cost');
  if (event.errorCode !== undefined) assert.equal(typeof event.errorCode, 'string', 'status.errorCode must be a string when present');
  if (event.eventId !== undefined) assert.equal(typeof event.eventId, 'string', 'status.eventId must be a string when present');
}

/** Asserts an acknowledgement is something the gateway can write out. */
export function assertAck(ack: WebhookAck): void {
  assert.equal(typeof ack.contentType, 'string', 'ack.contentType must be a string');
  assert.match(ack.contentType, /^[a-z]+\/[a-z0-9.+-]+/i, 'ack.contentType must be a media type');
  assert.equal(typeof ack.body, 'string', 'ack.body must be a string');
  if (/json/i.test(ack.contentType)) assert.doesNotThrow(() => JSON.parse(ack.body), 'a JSON ack must carry valid JSON');
}

/** The signed request with one byte of its body changed: what an attacker replaying a signature would send. */
export function tamperBody(request: WebhookRequest): WebhookRequest {
  const body = Buffer.from(request.rawBody);
  for (let i = body.length - 1; i >= 0; i--) {
    const c = body[i]!;
    const isDigit = c >= 0x30 && c <= 0x39;
    const isLetter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
    if (isDigit || isLetter) {
      body[i] = isDigit ? 0x30 + ((c - 0x30 + 1) % 10) : c === 0x7a || c === 0x5a ? c - 25 : c + 1;
      return { ...request, rawBody: body };
    }
  }
  return { ...request, rawBody: Buffer.concat([body, Buffer.from('x')]) };
}

/** The signed request without any header whose name contains `signature`. */
export function stripSignature(request: WebhookRequest): WebhookRequest {
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !name.toLowerCase().includes('signature')));
  return { ...request, headers };
}

function assertCost(cost: unknown, label: string): void {
  if (cost === null) return;
  assert.equal(typeof cost, 'number', `${label} must be a number or null`);
  assert.ok(Number.isFinite(cost) && (cost as number) >= 0, `${label} must be a finite, non-negative USD amount`);
}

function describe(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  return String(value);
}
