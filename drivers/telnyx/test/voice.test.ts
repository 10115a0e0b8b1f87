import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WebhookRequest } from '@switchboard/sdk';
import driver, { callCommands, parseCallWebhook, readStreamStart, signedStreamUrl, streamUrlHolds } from '../src/index.js';

const KEY = 'KEY_test_0123456789';
const PUBLIC_KEY = 'A'.repeat(43) + '=';
const STREAM = 'wss://sb.example.com/webhooks/agent-1/voice-ws';
const context = { logger: { debug() {}, info() {}, warn() {}, error() {} }, publicBaseUrl: 'https://sb.example.com' };

function event(eventType: string, payload: Record<string, unknown>): WebhookRequest {
  return {
    channel: 'voice',
    method: 'POST',
    url: 'https://sb.example.com/webhooks/agent-1/call-status',
    headers: { 'content-type': 'application/json' },
    rawBody: Buffer.from(JSON.stringify({ data: { record_type: 'event', event_type: eventType, id: 'e1', occurred_at: '2026-01-01T00:00:00Z', payload }, meta: { attempt: 1 } })),
  };
}

const CALL = { call_control_id: 'v3:abc_DEF-123', call_leg_id: 'leg', call_session_id: 'session', from: '+15005550006', to: '+14155550123' };

describe('telnyx call webhooks', () => {
  it('reads call.initiated as ringing (incoming) or queued (placed), with its direction and addresses', () => {
    assert.deepEqual(parseCallWebhook(event('call.initiated', { ...CALL, direction: 'incoming', state: 'parked' })), {
      type: 'call-status',
      callSid: 'v3:abc_DEF-123',
      status: 'ringing',
      durationSeconds: null,
      cost: null,
      from: '+15005550006',
      to: '+14155550123',
      direction: 'inbound',
    });
    const placed = parseCallWebhook(event('call.initiated', { ...CALL, direction: 'outgoing', state: 'bridging' }));
    assert.deepEqual([placed?.status, placed?.direction], ['queued', 'outbound']);
  });

  it('reads call.answered as in-progress', () => {
    assert.equal(parseCallWebhook(event('call.answered', { ...CALL, direction: 'outgoing' }))?.status, 'in-progress');
  });

  it('reads call.hangup by its hangup_cause; a completed call lasts from start_time to end_time', () => {
    const times = { start_time: '2026-01-01T00:00:00.000Z', end_time: '2026-01-01T00:00:42.400Z' };
    const completed = parseCallWebhook(event('call.hangup', { ...CALL, ...times, hangup_cause: 'normal_clearing' }));
    assert.deepEqual([completed?.status, completed?.durationSeconds], ['completed', 42]);
    for (const [cause, status] of [['user_busy', 'busy'], ['timeout', 'no-answer'], ['originator_cancel', 'canceled'], ['call_rejected', 'busy'], ['unallocated_number', 'failed']] as const) {
      const ended = parseCallWebhook(event('call.hangup', { ...CALL, ...times, hangup_cause: cause }));
      assert.deepEqual([ended?.status, ended?.durationSeconds], [status, 0], cause);
    }
  });

  it('gives nothing for events that change no call status', () => {
    assert.equal(parseCallWebhook(event('streaming.started', { ...CALL, stream_url: STREAM })), undefined);
    assert.equal(parseCallWebhook(event('call.speak.ended', CALL)), undefined);
  });

  it('refuses a body that is not a Telnyx event, or names no call', () => {
    assert.throws(() => parseCallWebhook({ ...event('call.answered', CALL), rawBody: Buffer.from('CallSid=CA1') }), { code: 'MALFORMED_PAYLOAD' });
    assert.throws(() => parseCallWebhook(event('call.answered', { ...CALL, call_control_id: '' })), { code: 'MALFORMED_PAYLOAD' });
    assert.throws(() => parseCallWebhook({ ...event('call.answered', CALL), rawBody: Buffer.from('{"data":{}}') }), { code: 'MALFORMED_PAYLOAD' });
  });
});

describe('telnyx media stream frames', () => {
  it('reads the start frame: the call_control_id, the session from client_state, no stream id to send back', () => {
    const [connect] = callCommands(KEY, [{ kind: 'connect', mode: 'stream', url: STREAM, parameters: { sessionId: 'ses_42' } }]);
    assert.equal(connect?.action, 'streaming_start');
    const clientState = connect?.action === 'streaming_start' ? connect.body.client_state : undefined;
    const frame = {
      event: 'start',
      sequence_number: '1',
      stream_id: '32DE0DEA-53CB-4B21-89A4-9E1819C043BC',
      start: {
        user_id: 'u',
        call_control_id: 'v3:abc',
        call_session_id: 's',
        from: '+1',
        to: '+2',
        tags: [],
        client_state: clientState,
        custom_parameters: {},
        media_format: { encoding: 'PCMU', sample_rate: 8000, channels: 1 },
      },
    };
    assert.deepEqual(readStreamStart(frame), { sessionId: 'ses_42', callSid: 'v3:abc', outlivesStream: true });
  });

  it('prefers a sessionId in custom_parameters, and reads a frame without one as no session', () => {
    assert.equal(readStreamStart({ event: 'start', start: { call_control_id: 'v3:x', custom_parameters: { sessionId: 'ses_c' }, client_state: 'bm90IGpzb24=' } }).sessionId, 'ses_c');
    assert.equal(readStreamStart({ event: 'start', start: { call_control_id: 'v3:x', client_state: 'bm90IGpzb24=' } }).sessionId, undefined);
    assert.equal(readStreamStart({ event: 'start' }).callSid, undefined);
  });

  it('asks for the stream both ways as PCMU RTP payloads, at a URL that carries the session and its token', () => {
    const [connect] = callCommands(KEY, [{ kind: 'connect', mode: 'stream', url: STREAM, parameters: { sessionId: 'ses_1' } }]);
    assert.ok(connect?.action === 'streaming_start');
    assert.equal(connect.body.stream_track, 'inbound_track');
    assert.equal(connect.body.stream_bidirectional_mode, 'rtp');
    assert.equal(connect.body.stream_bidirectional_codec, 'PCMU');
    assert.match(connect.body.stream_url, /^wss:\/\/sb\.example\.com\/webhooks\/agent-1\/voice-ws\?session=ses_1&token=[A-Za-z0-9_-]{43}$/);
  });

  it('maps say, play, dial and hangup to speak, playback_start, transfer and hangup; refuses relay mode', () => {
    const commands = callCommands(KEY, [
      { kind: 'say', text: 'One moment', language: 'en-US' },
      { kind: 'pause', seconds: 1 },
      { kind: 'play', url: 'https://media.example.com/hold.wav' },
      { kind: 'dial', number: '+15005550007', callerId: '+15005550006' },
      { kind: 'hangup' },
    ]);
    assert.deepEqual(commands, [
      { action: 'speak', body: { payload: 'One moment', voice: 'female', language: 'en-US' } },
      { action: 'playback_start', body: { audio_url: 'https://media.example.com/hold.wav' } },
      { action: 'transfer', body: { to: '+15005550007', from: '+15005550006' } },
      { action: 'hangup', body: {} },
    ]);
    assert.throws(() => callCommands(KEY, [{ kind: 'connect', mode: 'relay', url: STREAM }]), { code: 'VALIDATION_FAILED' });
  });
});

describe('telnyx stream upgrade token', () => {
  const signed = signedStreamUrl(KEY, STREAM, 'ses_1');

  it('holds for the URL it made, and for nothing else', () => {
    assert.equal(streamUrlHolds(KEY, signed), true);
    assert.equal(streamUrlHolds('KEY_other', signed), false);
    assert.equal(streamUrlHolds(KEY, signed.replace('ses_1', 'ses_2')), false);
    assert.equal(streamUrlHolds(KEY, `${STREAM}?session=ses_1`), false);
    assert.equal(streamUrlHolds(KEY, `${signed}x`), false);
    assert.equal(streamUrlHolds(KEY, 'not a url'), false);
  });

  it('is what the driver checks on a voice WebSocket upgrade (Telnyx signs none)', async () => {
    const d = await driver.create({ apiKey: KEY, publicKey: PUBLIC_KEY }, context);
    const upgrade = (url: string): WebhookRequest => ({ channel: 'voice', method: 'GET', url, headers: {}, rawBody: Buffer.alloc(0) });
    await d.webhooks!.verify(upgrade(signed));
    await assert.rejects(async () => d.webhooks!.verify(upgrade(`${STREAM}?session=ses_1`)), { code: 'SIGNATURE_INVALID' });
    // A POST on the voice channel is a call event: Ed25519, not the token.
    await assert.rejects(async () => d.webhooks!.verify({ ...upgrade(signed), method: 'POST', rawBody: Buffer.from('{}') }), { code: 'SIGNATURE_INVALID' });
  });
});
